package dev.quarry.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

@ExtendWith(MinioExtension.class)
class S3StoreIT extends ObjectStoreContract {
  private static final int MIB = 1 << 20;

  private final MinioServer minio;
  private String bucket;

  S3StoreIT(MinioServer minio) {
    this.minio = minio;
  }

  static S3Settings settingsFor(MinioServer minio) {
    return S3Settings.defaults().withEndpoint(minio.endpoint())
        .withCredentials(minio.accessKey(), minio.secretKey())
        .withPartSizeBytes(S3Settings.MIN_PART_SIZE_BYTES);
  }

  @Override
  ObjectStore openStore() {
    bucket = minio.createBucket("store");
    return S3Store.open(bucket, settingsFor(minio));
  }

  private List<MultipartUpload> pendingUploads(String key) {
    try (S3Client client = minio.client()) {
      return client.listMultipartUploads(b -> b.bucket(bucket).prefix(key)).uploads();
    }
  }

  /** Writes {@code bytes} of seeded random data in 64 KiB writes and returns their SHA-256. */
  private static byte[] writeRandom(OutputStream out, long bytes) throws IOException {
    MessageDigest digest = sha256();
    Random random = new Random(bytes);
    byte[] chunk = new byte[64 * 1024];
    for (long written = 0; written < bytes; written += chunk.length) {
      random.nextBytes(chunk);
      int length = (int) Math.min(chunk.length, bytes - written);
      out.write(chunk, 0, length);
      digest.update(chunk, 0, length);
    }
    return digest.digest();
  }

  private static byte[] sha256Of(InputStream in) throws IOException {
    MessageDigest digest = sha256();
    try (InputStream digesting = new DigestInputStream(in, digest)) {
      digesting.transferTo(OutputStream.nullOutputStream());
    }
    return digest.digest();
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void urlsAreS3Urls() {
    assertThat(store.url("a/b")).isEqualTo("s3://" + bucket + "/a/b");
  }

  @Test
  void headOfAMissingKeyIsExactlyOneRequest() throws IOException {
    RequestCounts before = store.requests().snapshot();

    assertThat(store.head("missing/key")).isEmpty();

    RequestCounts made = store.requests().minus(before);
    assertThat(made.head()).isEqualTo(1);
    assertThat(made.total()).isEqualTo(1);
  }

  @Test
  void anObjectOfMorePartsThanAllowedAtTheFirstSizeUploadsWholeAsItsPartsGrow() throws IOException {
    // S3 allows 10,000 parts: at a fixed 8 MiB that is 78 GiB, less than one extract worker's pack of a 1 TiB sort on
    // 8 workers. Here 4 parts allowed, growing every 2: 5, 5, 10, 10 MiB hold 27 MiB, 4 fixed parts of 5 MiB did not.
    PartSizes sizes = new PartSizes(S3Settings.MIN_PART_SIZE_BYTES, 4, 2, 64 << 20);
    S3Store s3 = (S3Store) store;
    byte[] written;
    try (ObjectUpload upload = s3.upload("grown/object", sizes)) {
      written = writeRandom(upload.stream(), 27L * MIB);
      upload.commit();
    }
    assertThat(store.head("grown/object").orElseThrow().size()).isEqualTo(27L * MIB);
    try (InputStream in = store.get("grown/object")) {
      assertThat(sha256Of(in)).isEqualTo(written);
    }
  }

  @Test
  void aLargeUploadGoesInPartsWhileTheCallerWrites() throws IOException {
    RequestCounts before = store.requests().snapshot();
    byte[] written;
    ObjectInfo committed;
    try (ObjectUpload upload = store.upload("big/object")) {
      written = writeRandom(upload.stream(), 25L * MIB);
      assertThat(pendingUploads("big/object")).as("started while writing").hasSize(1);
      committed = upload.commit();
    }

    assertThat(store.requests().minus(before).put()).as("1 create + 5 parts + 1 complete").isEqualTo(7);
    ObjectInfo head = store.head("big/object").orElseThrow();
    assertThat(head.size()).isEqualTo(25L * MIB);
    assertThat(committed.size()).isEqualTo(25L * MIB);
    assertThat(committed.etag()).isEqualTo(head.etag()).endsWith("-5");
    assertThat(sha256Of(store.get("big/object"))).isEqualTo(written);
    assertThat(pendingUploads("big/")).isEmpty();
  }

  @Test
  void anUploadOfExactlyOnePartIsOnePut() throws IOException {
    RequestCounts before = store.requests().snapshot();
    try (ObjectUpload upload = store.upload("one-part")) {
      writeRandom(upload.stream(), 5L * MIB);
      upload.commit();
    }

    assertThat(store.requests().minus(before).put()).isEqualTo(1);
    assertThat(store.head("one-part").orElseThrow().etag()).doesNotContain("-");
  }

  @Test
  void hashedContentIsOnePutSignedWithTheCallersHash() throws IOException {
    byte[] data = new byte[3 * MIB + 5]; // over the part size: an upload would take parts
    new Random(3).nextBytes(data);
    RequestCounts before = store.requests().snapshot();
    store.put("hashed/big", hashed(data));
    RequestCounts made = store.requests().snapshot().minus(before);
    assertThat(made.put()).isEqualTo(1);
    assertThat(made.total()).isEqualTo(1);
    assertThat(sha256Of(store.get("hashed/big"))).isEqualTo(hashed(data).sha256());

    // The server checks the body against the signed hash: a wrong one is refused, and nothing is stored.
    byte[] other = Arrays.copyOf(data, data.length);
    other[12345] ^= 1;
    HashedContent mismatched = new HashedContent(other.length, hashed(data).sha256(),
        () -> new ByteArrayInputStream(other));
    assertThatThrownBy(() -> store.put("hashed/mismatch", mismatched)).isInstanceOf(IOException.class)
        .hasMessageContaining("XAmzContentSHA256Mismatch");
    assertThat(store.head("hashed/mismatch")).isEmpty();
  }

  /**
   * Content read from where it lies goes in parts sized from its length (a quarter each here), each read as it is
   * sent (and, over plain HTTP, once before to hash it), never the whole object at once.
   */
  @Test
  void rangedContentGoesInPartsSizedFromItsLengthEachReadWhenSent() throws IOException {
    byte[] data = new byte[25 * MIB + 3];
    new Random(25).nextBytes(data);
    List<long[]> opened = java.util.Collections.synchronizedList(new ArrayList<>());
    RangedContent content = new RangedContent() {
      @Override
      public long length() {
        return data.length;
      }

      @Override
      public InputStream open(long offset, long length) {
        opened.add(new long[] {offset, length});
        return new ByteArrayInputStream(data, (int) offset, (int) length);
      }
    };
    RequestCounts before = store.requests().snapshot();
    store.put("ranged/big", content);

    assertThat(store.requests().minus(before).put()).as("1 create + 4 parts of 7 MiB + 1 complete").isEqualTo(6);
    assertThat(store.head("ranged/big").orElseThrow().etag()).endsWith("-4");
    assertThat(sha256Of(store.get("ranged/big"))).isEqualTo(sha256Of(new ByteArrayInputStream(data)));
    assertThat(opened).as("each part hashed, then sent").hasSize(8)
        .allSatisfy(range -> assertThat(range[1]).isLessThanOrEqualTo(7 * MIB));
    assertThat(pendingUploads("ranged/")).isEmpty();

    before = store.requests().snapshot();
    store.put("ranged/small", ObjectStoreContract.ranged(data, 5 * MIB));
    assertThat(store.requests().minus(before).put()).as("within a part: one PutObject").isEqualTo(1);
    assertThat(store.head("ranged/small").orElseThrow().size()).isEqualTo(5 * MIB);
  }

  /** A part whose content ends early fails the write, names the part, and leaves no object and no pending upload. */
  @Test
  void rangedContentThatEndsEarlyInAPartAbortsTheUpload() throws IOException {
    byte[] data = new byte[23 * MIB]; // parts of 7 MiB: the fourth, [21, 25) MiB, ends early
    assertThatThrownBy(() -> store.put("ranged/cut", ObjectStoreContract.ranged(data, 25L * MIB)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("Cannot write " + store.url("ranged/cut") + " (part 4)")
        .hasMessageContaining("ended after");
    assertThat(store.head("ranged/cut")).isEmpty();
    assertThat(pendingUploads("ranged/cut")).isEmpty();
  }

  /** {@code content} with a hook called before each open, given the offset and how many opens of it there were. */
  private static RangedContent hooked(RangedContent content, java.util.function.BiConsumer<Long, Integer> beforeOpen) {
    java.util.Map<Long, Integer> opens = new java.util.concurrent.ConcurrentHashMap<>();
    return new RangedContent() {
      @Override
      public long length() {
        return content.length();
      }

      @Override
      public InputStream open(long offset, long length) throws IOException {
        beforeOpen.accept(offset, opens.merge(offset, 1, Integer::sum));
        return content.open(offset, length);
      }
    };
  }

  /**
   * A local file that shrinks while a part of it is sent fails the write at once, naming the part, with nothing left:
   * the part is not sent again as after a network error (before: 8 attempts over 5 seconds, then "no answer").
   */
  @Test
  void aFileThatShrinksWhileItsPartIsSentFailsAtOnceAndLeavesNothing() throws Exception {
    java.nio.file.Path file = java.nio.file.Files.createTempFile("quarry-ranged-", ".bin");
    try {
      byte[] data = new byte[12 * MIB]; // parts of 5 MiB: 5, 5, 2
      new Random(12).nextBytes(data);
      java.nio.file.Files.write(file, data);
      java.util.Map<Long, Integer> opens = new java.util.concurrent.ConcurrentHashMap<>();
      RangedContent shrinking = hooked(RangedContent.of(file), (offset, count) -> {
        opens.merge(offset, 1, Integer::sum);
        if (offset == 5L * MIB && count == 2) { // part 2 hashed; now it is sent
          try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file,
              java.nio.file.StandardOpenOption.WRITE)) {
            channel.truncate(7L * MIB);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
      });

      assertThatThrownBy(() -> store.put("ranged/shrunk", shrinking)).isInstanceOf(IOException.class)
          .hasMessageContaining("Cannot write " + store.url("ranged/shrunk") + " (part ")
          .hasMessageContaining("shrank while being read");
      assertThat(opens.get(5L * MIB)).as("part 2: hashed, sent once, not again").isEqualTo(2);
      assertThat(opens.values()).allSatisfy(count -> assertThat(count).isLessThanOrEqualTo(2));
      assertThat(store.head("ranged/shrunk")).isEmpty();
      assertThat(pendingUploads("ranged/shrunk")).isEmpty();
    } finally {
      java.nio.file.Files.deleteIfExists(file);
    }
  }

  /**
   * A writer interrupted while it waits for its parts (Ctrl-C during a commit) leaves no object and no pending upload:
   * the parts go on and the upload is aborted once they end. Before, the parts were cancelled and the abort, waiting
   * for them, failed on the cancellation before it was sent.
   */
  @Test
  void aWriterInterruptedWhileItsPartsAreSentLeavesNoPendingUpload() throws Exception {
    byte[] data = new byte[12 * MIB];
    java.util.concurrent.CountDownLatch sending = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    RangedContent slowPart = hooked(RangedContent.of(data), (offset, count) -> {
      if (offset == 5L * MIB && count == 2) { // part 2 is being sent
        sending.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.UncheckedIOException(new java.io.InterruptedIOException("part 2 interrupted"));
        }
      }
    });
    Throwable[] thrown = new Throwable[1];
    Thread writer = new Thread(() -> {
      try {
        store.put("ranged/interrupted", slowPart);
      } catch (Throwable e) {
        thrown[0] = e;
      }
    });
    writer.start();
    sending.await();
    while (writer.getState() != Thread.State.WAITING) { // in the commit, waiting for part 2
      Thread.sleep(10);
    }
    writer.interrupt();
    Thread.sleep(200);
    release.countDown();
    writer.join(30_000);

    assertThat(writer.isAlive()).isFalse();
    assertThat(thrown[0]).isInstanceOf(java.io.InterruptedIOException.class);
    assertThat(store.head("ranged/interrupted")).isEmpty();
    assertThat(pendingUploads("ranged/interrupted")).isEmpty();
  }

  /**
   * A sort's commit gives up the unfinished uploads of its shards' names, in a folder others may write to: only
   * those names' uploads go, whatever their age. Listed under the bucket's root, the one prefix short of a whole key
   * that MinIO lists uploads for.
   */
  @Test
  void theUnfinishedUploadsOfGivenKeysAreGivenUpAndNoOthers() throws IOException {
    for (String key : java.util.List.of("out/x-1.tar", "out/x-2.tar", "out/x-10.tar")) {
      writeRandom(store.upload(key).stream(), 9L * MIB); // a part sent, never completed nor aborted
    }
    assertThatThrownBy(() -> store.removeUnfinishedUploadsOf("elsewhere/", java.util.Set.of("out/x-1.tar")))
        .hasMessageContaining("is not under");

    assertThat(store.removeUnfinishedUploadsOf("", java.util.Set.of("out/x-1.tar", "out/x-2.tar", "out/x-3.tar")))
        .isEqualTo(2);

    assertThat(pendingUploads("out/x-1.tar")).isEmpty();
    assertThat(pendingUploads("out/x-2.tar")).isEmpty();
    assertThat(pendingUploads("out/x-10.tar")).as("a name not given, under the same prefix").hasSize(1);
    assertThat(store.removeAbandonedUploads("out/x-10.tar", java.time.Duration.ZERO)).isEqualTo(1);
  }

  /** A 403 is a refusal, which a caller that only tidies may go on without; a missing bucket (404) is not. */
  @Test
  void aForbiddenListingOfUploadsIsARefusal() throws IOException {
    S3Settings wrongSecret = settingsFor(minio).withCredentials(minio.accessKey(), minio.secretKey() + "-typo");
    try (S3Store forbidden = S3Store.open(bucket, wrongSecret);
        S3Store missing = S3Store.open("no-such-bucket-" + bucket, settingsFor(minio))) {
      assertThatThrownBy(() -> forbidden.removeUnfinishedUploadsOf("", java.util.Set.of("out/x-1.tar")))
          .isInstanceOf(RequestRefusedException.class).hasMessageContaining("(HTTP 403)");
      assertThatThrownBy(() -> missing.removeAbandonedUploads("", java.time.Duration.ZERO))
          .isNotInstanceOf(RequestRefusedException.class).hasMessageContaining("does not exist");
    }
  }

  @Test
  void multipartUploadsAKilledWriterLeftAreRemovedByPrefixAndAge() throws IOException {
    ObjectUpload killed = store.upload("cas/blobs/killed");
    writeRandom(killed.stream(), 12L * MIB); // parts sent, never completed nor aborted: what kill -9 leaves
    ObjectUpload other = store.upload("elsewhere/kept");
    writeRandom(other.stream(), 12L * MIB);
    // MinIO lists uploads only for a prefix that is a whole key (AWS S3 and Ceph take any prefix; MinIO removes
    // stale uploads by itself after a day), so the prefix here is the key.
    assertThat(pendingUploads("cas/blobs/killed")).as("the upload started").hasSize(1);

    assertThat(store.removeAbandonedUploads("cas/blobs/killed", java.time.Duration.ofHours(1))).as("too young")
        .isZero();
    assertThat(store.removeAbandonedUploads("cas/blobs/killed", java.time.Duration.ZERO)).isEqualTo(1);

    assertThat(pendingUploads("cas/blobs/killed")).isEmpty();
    assertThat(pendingUploads("elsewhere/kept")).as("another key is left alone").hasSize(1);
    other.abort();
  }

  @Test
  void anAbortedMultipartUploadLeavesNoObjectAndNoPendingUpload() throws IOException {
    RequestCounts before = store.requests().snapshot();
    ObjectUpload upload = store.upload("big/aborted");
    writeRandom(upload.stream(), 12L * MIB);
    assertThat(pendingUploads("big/aborted")).as("the upload started").hasSize(1);

    upload.abort();

    assertThat(store.head("big/aborted")).isEmpty();
    assertThat(store.list("", null, 10).objects()).isEmpty();
    assertThat(pendingUploads("big/aborted")).isEmpty();
    RequestCounts made = store.requests().minus(before);
    assertThat(made.put()).as("create + 2 parts").isEqualTo(3);
    assertThat(made.delete()).as("the abort").isEqualTo(1);
  }

  @Test
  void closingAMultipartUploadWithoutCommitAbortsIt() throws IOException {
    try (ObjectUpload upload = store.upload("big/closed")) {
      writeRandom(upload.stream(), 11L * MIB);
    }

    assertThat(store.head("big/closed")).isEmpty();
    assertThat(pendingUploads("big/closed")).isEmpty();
  }

  @Test
  void rangesOfALargeObjectComeFromTheRightPlace() throws IOException {
    byte[] data = bytes(7 * MIB, 7);
    store.put("ranged", data);

    try (InputStream in = store.getRange("ranged", 5L * MIB - 3, 10)) {
      assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 5 * MIB - 3, 5 * MIB + 7));
    }
    try (InputStream in = store.get("ranged")) {
      assertThat(in.readNBytes(100)).isEqualTo(Arrays.copyOf(data, 100));
      // Closing before the end drops the connection instead of draining 7 MiB.
    }
  }

  @Test
  void headGetPutListAndDeleteNeverBuildTheSdkClient() throws IOException {
    S3Store s3 = (S3Store) store;
    s3.put("plain/a", THOUSAND_BYTES);
    s3.put("plain/b", THOUSAND_BYTES);

    assertThat(s3.head("plain/a")).isPresent();
    assertThat(read(s3.get("plain/a"))).isEqualTo(THOUSAND_BYTES);
    assertThat(keys(s3.list("plain/", null, 1))).containsExactly("plain/a");
    s3.delete("plain/a");
    s3.delete("plain/never-written");

    assertThat(keys(s3.list("plain/", null, 10))).containsExactly("plain/b");
    assertThat(s3.sdkClientBuilt()).as("a sync's requests cost no SDK client (about half a second to build)")
        .isFalse();
  }

  @Test
  void listedKeysComeBackAsWrittenWhateverTheirCharacters() throws Exception {
    List<String> keys = List.of("odd/a b", "odd/a+b", "odd/a%20b", "odd/a&b<c>'\"", "odd/\u00e9t\u00e9", "odd/x?y=z#w",
        "odd/tab\tnewline\n");
    putAll(keys);

    assertThat(keys(store.list("odd/", null, 1000))).containsExactlyInAnyOrderElementsOf(keys);
    assertThat(keys(store.list("odd/a", "odd/a b", 1000))).as("a start-after with a space")
        .containsExactlyInAnyOrder("odd/a+b", "odd/a%20b", "odd/a&b<c>'\"");
  }

  @Test
  void failuresNameTheUrlAndWhatS3Said() throws IOException {
    try (ObjectStore missing = S3Store.open("no-such-bucket-here", settingsFor(minio))) {
      // Named as the user gave it, not by the object the request was for.
      String missingBucket = "Cannot use s3://no-such-bucket-here: bucket no-such-bucket-here does not exist on "
          + minio.endpoint() + " (check the bucket and the endpoint; NoSuchBucket (HTTP 404)";
      assertThatThrownBy(() -> missing.put("key", THOUSAND_BYTES)).isInstanceOf(IOException.class)
          .hasMessageStartingWith(missingBucket);
      assertThatThrownBy(() -> missing.get("key")).isInstanceOf(IOException.class)
          .hasMessageStartingWith(missingBucket);
      assertThatThrownBy(() -> missing.list("dir/", null, 10)).isInstanceOf(IOException.class)
          .hasMessageStartingWith(missingBucket);

      ObjectUpload small = missing.upload("key");
      small.stream().write(THOUSAND_BYTES);
      assertThatThrownBy(small::commit).isInstanceOf(IOException.class)
          .hasMessageStartingWith(missingBucket);

      ObjectUpload large = missing.upload("key");
      assertThatThrownBy(() -> writeRandom(large.stream(), 6L * MIB)).as("the first part fails on write")
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith(missingBucket);
      large.close();
    }
  }

  @Test
  void anInvalidBucketNameIsRefusedBeforeAnyRequest() {
    assertThatThrownBy(() -> S3Store.open("Not_A_Bucket", settingsFor(minio)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid bucket name: Not_A_Bucket (must be 3 to 63 lowercase letters, digits, dots and hyphens,"
            + " start and end with a letter or digit, and not look like an IP address)");
  }
}
