package dev.quarry.core.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.testkit.OpenDescriptors;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FileStoreTest extends ObjectStoreContract {
  private static final int BUFFER = 1 << 20;

  @TempDir
  Path root;

  @Override
  ObjectStore openStore() {
    return new FileStore(root);
  }

  /** On a file system without hard links (FAT refuses them: EPERM) the write is a rename that keeps what is there. */
  @Test
  void putIfAbsentWithoutHardLinksStillKeepsWhatIsThereAndLeavesNoTempFile() throws IOException {
    try (FileStore noLinks = new FileStore(root, true, (link, existing) -> {
      throw new java.nio.file.FileSystemException(link.toString(), existing.toString(), "Operation not permitted");
    })) {
      assertThat(noLinks.putIfAbsent("claims/first", "one".getBytes(StandardCharsets.UTF_8))).isTrue();
      assertThat(noLinks.putIfAbsent("claims/first", "two".getBytes(StandardCharsets.UTF_8))).isFalse();
      assertThat(Files.readString(root.resolve("claims/first"))).isEqualTo("one");
      assertThat(filesUnderRoot()).containsExactly(root.resolve("claims/first"));
    }
  }

  /**
   * A folder at the name is an error, as for a put, not an object there: a caller that looks again finds none. And a
   * file system's other refusals of the link are errors, not a cause to rename instead.
   */
  @Test
  void putIfAbsentRefusesAFolderAtTheNameAndALinkThatFailedForAnotherReason() throws IOException {
    Files.createDirectories(root.resolve("claims/folder"));
    try (FileStore store = new FileStore(root)) {
      assertThatThrownBy(() -> store.putIfAbsent("claims/folder", new byte[] {1}))
          .hasMessage("Cannot write file://" + root + "/claims/folder: Is a directory");
    }
    try (FileStore full = new FileStore(root, true, (link, existing) -> {
      throw new java.nio.file.FileSystemException(link.toString(), existing.toString(), "No space left on device");
    })) {
      assertThatThrownBy(() -> full.putIfAbsent("claims/full", new byte[] {1}))
          .hasMessage("Cannot write file://" + root + "/claims/full: No space left on device");
      assertThat(Files.exists(root.resolve("claims/full"))).isFalse();
    }
    assertThat(filesUnderRoot()).isEmpty();
  }

  private List<Path> filesUnderRoot() throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(Files::isRegularFile).toList();
    }
  }

  @Test
  void keysArePathsUnderTheRootAndUrlsAreFileUrls() throws IOException {
    store.put("a/b/c.txt", "hello".getBytes(UTF_8));

    assertThat(root.resolve("a/b/c.txt")).hasContent("hello");
    assertThat(store.url("a/b/c.txt")).isEqualTo("file://" + root + "/a/b/c.txt");
    assertThat(new FileStore(Path.of("/")).url("data/x")).isEqualTo("file:///data/x");
  }

  @Test
  void anUploadWritesATempFileBesideTheTargetAndRenamesItOnCommit() throws IOException {
    try (ObjectUpload upload = store.upload("dir/object")) {
      upload.stream().write(THOUSAND_BYTES);
      upload.stream().flush();
      assertThat(filesUnderRoot()).singleElement()
          .satisfies(temp -> assertThat(temp.getFileName().toString()).startsWith(FileStore.UPLOAD_PREFIX))
          .satisfies(temp -> assertThat(temp.getParent()).isEqualTo(root.resolve("dir")));
      upload.commit();
    }

    assertThat(filesUnderRoot()).containsExactly(root.resolve("dir/object"));
  }

  @Test
  void abortAndCloseRemoveTheTempFile() throws IOException {
    ObjectUpload aborted = store.upload("dir/aborted");
    aborted.stream().write(THOUSAND_BYTES);
    aborted.stream().flush();
    aborted.abort();
    try (ObjectUpload closed = store.upload("dir/closed")) {
      closed.stream().write(new byte[1 << 20]);
    }

    assertThat(filesUnderRoot()).isEmpty();
  }

  @Test
  void listingsIgnoreTempFilesOfUploadsInProgress() throws IOException {
    store.put("ds/shard-0", THOUSAND_BYTES);
    Files.write(root.resolve("ds/" + FileStore.UPLOAD_PREFIX + "left-by-a-crash"), THOUSAND_BYTES);

    try (ObjectUpload upload = store.upload("ds/shard-1")) {
      upload.stream().write(THOUSAND_BYTES);
      upload.stream().flush();
      assertThat(keys(store.list("ds/", null, 10))).containsExactly("ds/shard-0");
    }
  }

  /**
   * A process killed mid-upload (a push, a sort writing its shards) leaves a temp file no listing shows: the next
   * listing of its folder or write into it removes it once it is older than {@link FileStore#ABANDONED_AFTER}. A
   * younger one may belong to a writer still at work, and stays.
   */
  @Test
  void anAbandonedTempFileIsRemovedByTheNextListingOrWriteOfItsFolder() throws IOException {
    assertThat(FileStore.ABANDONED_AFTER).isEqualTo(java.time.Duration.ofHours(24));
    Path listed = abandoned("ds/", "killed-push", FileStore.ABANDONED_AFTER.plusMinutes(1));
    Path fresh = abandoned("ds/", "writer-at-work", FileStore.ABANDONED_AFTER.minusMinutes(1));
    Path written = abandoned("out/", "killed-sort", FileStore.ABANDONED_AFTER.plusMinutes(1));

    assertThat(keys(store.list("ds/", null, 10))).isEmpty();
    assertThat(listed).doesNotExist();
    assertThat(fresh).exists();

    store.put("out/shard-0", THOUSAND_BYTES);
    assertThat(written).doesNotExist();
  }

  @Test
  void abandonedUploadsUnderAPrefixAreRemovedByAgeAndCounted() throws IOException {
    Path old = abandoned("cas/blobs/ab/", "killed-push", java.time.Duration.ofHours(2));
    Path young = abandoned("cas/blobs/cd/", "writer-at-work", java.time.Duration.ofMinutes(1));
    Path elsewhere = abandoned("other/", "not-under-the-prefix", java.time.Duration.ofHours(2));

    assertThat(store.removeAbandonedUploads("cas/", java.time.Duration.ofHours(1))).isEqualTo(1);
    assertThat(old).doesNotExist();
    assertThat(young).exists();
    assertThat(elsewhere).exists();
    assertThat(store.removeAbandonedUploads("nothing-here/", java.time.Duration.ZERO)).isZero();
  }

  private Path abandoned(String folder, String name, java.time.Duration age) throws IOException {
    Path temp = root.resolve(folder + FileStore.UPLOAD_PREFIX + name);
    Files.createDirectories(temp.getParent());
    Files.write(temp, THOUSAND_BYTES);
    Files.setLastModifiedTime(temp, FileTime.from(Instant.now().minus(age)));
    return temp;
  }

  @Test
  void theEtagFollowsSizeAndModificationTime() throws IOException {
    store.put("tagged", THOUSAND_BYTES);
    Path file = root.resolve("tagged");
    Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2025-01-02T03:04:05.123456789Z")));

    ObjectInfo info = store.head("tagged").orElseThrow();

    assertThat(info.etag()).isEqualTo(Long.toHexString(1000) + "-"
        + Long.toHexString(Instant.parse("2025-01-02T03:04:05.123456789Z").getEpochSecond() * 1_000_000_000L
        + 123_456_789L));
    assertThat(info.lastModified()).isEqualTo(Instant.parse("2025-01-02T03:04:05.123456789Z"));
    assertThat(store.head("tagged").orElseThrow().etag()).as("stable").isEqualTo(info.etag());
  }

  @ParameterizedTest
  @ValueSource(strings = {"a//b", "a/", "./a", "a/./b", "dir/" + FileStore.UPLOAD_PREFIX + "x", "nul\0name"})
  void fileKeysMustMapToOneFile(String key) {
    assertThatThrownBy(() -> store.put(key, THOUSAND_BYTES)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid object key: " + key + " (a file store's keys must not have empty or '.' components,"
            + " NUL characters, or names starting with .quarry-upload-)");
  }

  @Test
  void fileStorePrefixesMustNotHaveEmptyDirectoryComponents() {
    assertThatThrownBy(() -> store.list("a//b", null, 10)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid key prefix: a//b (a file store's prefixes must not have empty or '.' directory"
            + " components)");
  }

  @Test
  void directoriesAndPathsThroughFilesAreNotObjects() throws IOException {
    store.put("dir/file", THOUSAND_BYTES);

    assertThat(store.head("dir")).isEmpty();
    assertThat(store.head("dir/file/below")).isEmpty();
    assertThatThrownBy(() -> store.get("dir")).isInstanceOf(NoSuchObjectException.class);
    assertThatThrownBy(() -> store.get("dir/file/below")).isInstanceOf(NoSuchObjectException.class)
        .hasMessage("Cannot read " + store.url("dir/file/below") + ": no such object");
    store.delete("dir");
    store.delete("dir/file/below");
    assertThat(store.head("dir/file")).isPresent();
  }

  @Test
  void aWriteThatCannotCreateItsDirectoryNamesTheUrl() throws IOException {
    store.put("dir", THOUSAND_BYTES);

    assertThatThrownBy(() -> store.put("dir/below", THOUSAND_BYTES)).isInstanceOf(IOException.class)
        .hasMessageStartingWith("Cannot write " + store.url("dir/below") + ": ");
  }

  @Test
  void linksToFilesAreObjectsAndLinksToDirectoriesAreSkipped() throws IOException {
    store.put("real/file", THOUSAND_BYTES);
    Files.createSymbolicLink(root.resolve("link-to-file"), root.resolve("real/file"));
    Files.createSymbolicLink(root.resolve("link-to-dir"), root.resolve("real"));
    Files.createSymbolicLink(root.resolve("dangling"), root.resolve("nowhere"));

    assertThat(keys(store.list("", null, 10))).containsExactly("link-to-file", "real/file");
    assertThat(store.head("link-to-file").orElseThrow().size()).isEqualTo(1000);
  }

  @Test
  void aRangeStreamSkipsAndReportsWhatIsLeft() throws IOException {
    store.put("range", THOUSAND_BYTES);

    try (InputStream in = store.getRange("range", 100, 50)) {
      assertThat(in.available()).isEqualTo(50);
      assertThat(in.skip(10)).isEqualTo(10);
      assertThat(in.read()).isEqualTo(THOUSAND_BYTES[110] & 0xFF);
      assertThat(in.skip(100)).isEqualTo(39);
      assertThat(in.read()).isEqualTo(-1);
    }
  }

  /**
   * An upload through a direct write buffer writes every whole buffer with O_DIRECT (the temp file has an O_DIRECT
   * descriptor once a buffer is full, never before) and the rest through the page cache at commit, whatever the
   * sizes: the file holds exactly the bytes written, in odd pieces with flushes between them.
   */
  @ParameterizedTest
  @ValueSource(ints = {0, 1, 4095, 4096, 4097, BUFFER - 1, BUFFER, BUFFER + 1, 3 * BUFFER + 4097})
  void anUploadThroughADirectBufferWritesWholeBuffersPastThePageCacheAndTheRestAsUsual(int size) throws Exception {
    DirectWriteBuffers buffers = new DirectWriteBuffers(1, BUFFER);
    byte[] data = ObjectStoreContract.bytes(size, 7);
    ByteBuffer buffer = buffers.take();
    try (ObjectUpload upload = store.upload("dir/direct", buffer)) {
      for (int at = 0; at < size; ) {
        int piece = Math.min(size - at, at % 3 == 0 ? 7777 : 1);
        if (piece == 1) {
          upload.stream().write(data[at]);
        } else {
          upload.stream().write(data, at, piece);
        }
        at += piece;
        if (at % 5 == 0) {
          upload.stream().flush();
        }
      }
      Path temp = filesUnderRoot().getFirst();
      assertThat(openWithODirect(temp)).as("an O_DIRECT descriptor of the temp file").isEqualTo(size > BUFFER);
      upload.commit();
    }

    assertThat(root.resolve("dir/direct")).hasBinaryContent(data);
    assertThat(filesUnderRoot()).containsExactly(root.resolve("dir/direct"));
  }

  @Test
  void anAbortedDirectUploadLeavesNothing() throws Exception {
    ByteBuffer buffer = new DirectWriteBuffers(1, BUFFER).take();
    try (ObjectUpload upload = store.upload("dir/aborted", buffer)) {
      upload.stream().write(ObjectStoreContract.bytes(2 * BUFFER + 10, 3));
    }

    assertThat(filesUnderRoot()).isEmpty();
  }

  @Test
  void aDirectWriteBufferMustBeAlignedAndDirectAndOneThatIsNotLeavesNoTempFile() throws IOException {
    assertThatThrownBy(() -> store.upload("x", ByteBuffer.allocate(BUFFER)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Invalid direct write buffer: ")
        .hasMessageEndingWith("(must be direct and aligned to 4096 bytes in address and size: one of"
            + " DirectWriteBuffers)");
    assertThatThrownBy(() -> store.upload("x", ByteBuffer.allocateDirect(BUFFER + 1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(filesUnderRoot()).isEmpty();
  }

  /**
   * Ranged reads of a file open it once, however many ranges are read and however many are open at once, and
   * closing them closes it. Each range opened, stat'ed and closed the file before, which cost more than reading a
   * small record, and a local sort reads every record of an input so.
   */
  @Test
  void rangeReadsOpenTheFileOnceForAllTheirRangesAndCloseItWhenClosed() throws IOException {
    byte[] data = bytes(10_000, 4);
    store.put("shard", data);
    Path file = root.resolve("shard");
    try (ObjectStore.RangeReads reads = store.rangeReads("shard")) {
      try (InputStream first = reads.open(0, 100);
          InputStream second = reads.open(5000, 100);
          InputStream third = reads.open(9900, 100)) {
        assertThat(third.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 9900, 10_000));
        assertThat(first.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 0, 100));
        assertThat(second.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 5000, 5100));
        assertThat(OpenDescriptors.of(file)).as("descriptors of the file, three ranges open").hasSize(1);
      }
      assertThat(OpenDescriptors.of(file)).as("descriptors of the file, its ranges closed").hasSize(1);
    }
    assertThat(OpenDescriptors.of(file)).as("descriptors of the file, its reads closed").isEmpty();
  }

  /** Whether this process has {@code file} open with O_DIRECT (/proc/self/fdinfo: flags, octal). */
  private static boolean openWithODirect(Path file) throws IOException {
    int flag = System.getProperty("os.arch").equals("aarch64") ? 0200000 : 040000; // O_DIRECT differs by arch
    for (Path fd : OpenDescriptors.of(file)) {
      String flags = Files.readAllLines(Path.of("/proc/self/fdinfo", fd.getFileName().toString())).stream()
          .filter(line -> line.startsWith("flags:")).findFirst().orElseThrow();
      if ((Integer.parseInt(flags.substring("flags:".length()).strip(), 8) & flag) != 0) {
        return true;
      }
    }
    return false;
  }
}
