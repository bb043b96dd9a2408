package dev.quarry.core.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What every {@link ObjectStore} does, run against each implementation by its test class. */
abstract class ObjectStoreContract {
  static final byte[] THOUSAND_BYTES = bytes(1000, 1);

  ObjectStore store;

  /** A new, empty store for one test. */
  abstract ObjectStore openStore() throws Exception;

  @BeforeEach
  void openEmptyStore() throws Exception {
    store = openStore();
  }

  @AfterEach
  void closeStore() throws IOException {
    store.close();
  }

  static byte[] bytes(int length, long seed) {
    byte[] data = new byte[length];
    new Random(seed).nextBytes(data);
    return data;
  }

  static byte[] read(InputStream in) throws IOException {
    try (in) {
      return in.readAllBytes();
    }
  }

  List<String> keys(ListPage page) {
    return page.objects().stream().map(ObjectInfo::key).toList();
  }

  void putAll(List<String> keys) throws Exception {
    Semaphore inFlight = new Semaphore(32);
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> puts = new ArrayList<>();
      for (String key : keys) {
        puts.add(threads.submit(() -> {
          inFlight.acquire();
          try {
            store.put(key, key.getBytes(UTF_8));
          } finally {
            inFlight.release();
          }
          return null;
        }));
      }
      for (Future<?> put : puts) {
        put.get();
      }
    }
  }

  @Test
  void putThenHeadGetAndListTheSameObject() throws IOException {
    store.put("dir/sub/object.bin", THOUSAND_BYTES);

    ObjectInfo info = store.head("dir/sub/object.bin").orElseThrow();
    assertThat(info.key()).isEqualTo("dir/sub/object.bin");
    assertThat(info.size()).isEqualTo(1000);
    assertThat(info.etag()).isNotBlank().doesNotContain("\"");
    assertThat(info.lastModified()).isNotNull();
    assertThat(read(store.get("dir/sub/object.bin"))).isEqualTo(THOUSAND_BYTES);
    ListPage page = store.list("dir/", null, 10);
    assertThat(page.objects()).singleElement().satisfies(listed -> {
      assertThat(listed.key()).isEqualTo(info.key());
      assertThat(listed.size()).isEqualTo(info.size());
      assertThat(listed.etag()).isEqualTo(info.etag());
    });
    assertThat(page.nextStartAfter()).isNull();
  }

  @Test
  void getStartReadsTheFirstBytesAndTheSizeInOneRequest() throws Exception {
    store.put("start/long", THOUSAND_BYTES);
    store.put("start/short", "short".getBytes(UTF_8));
    store.put("start/empty", new byte[0]);
    long before = store.requests().total();

    ObjectStore.ObjectStart head = store.getStart("start/long", 100);
    assertThat(head.bytes()).isEqualTo(Arrays.copyOf(THOUSAND_BYTES, 100));
    assertThat(head.size()).isEqualTo(1000);
    ObjectStore.ObjectStart whole = store.getStart("start/short", 100);
    assertThat(whole.bytes()).asString(UTF_8).isEqualTo("short");
    assertThat(whole.size()).isEqualTo(5);
    ObjectStore.ObjectStart empty = store.getStart("start/empty", 100);
    assertThat(empty.bytes()).isEmpty();
    assertThat(empty.size()).isZero();
    assertThat(store.requests().total() - before).as("one request each").isEqualTo(3);

    assertThatThrownBy(() -> store.getStart("start/missing", 100)).isInstanceOf(NoSuchObjectException.class);
    assertThatThrownBy(() -> store.getStart("start/long", 0)).hasMessage("Invalid length: 0 (must be at least 1)");
  }

  @Test
  void putIfAbsentWritesOnlyWhereNoObjectIsAndOneOfManyAtOnceWins() throws Exception {
    assertThat(store.putIfAbsent("claims/first", "one".getBytes(UTF_8))).isTrue();
    assertThat(store.putIfAbsent("claims/first", "two".getBytes(UTF_8))).as("taken").isFalse();
    assertThat(read(store.get("claims/first"))).asString(UTF_8).isEqualTo("one");

    store.put("claims/put", THOUSAND_BYTES);
    assertThat(store.putIfAbsent("claims/put", "late".getBytes(UTF_8))).isFalse();
    assertThat(read(store.get("claims/put"))).isEqualTo(THOUSAND_BYTES);

    // Eight claimants released at once: exactly one writes, and what is there is its bytes.
    int claimants = 8;
    java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
    List<Future<Boolean>> answers = new ArrayList<>();
    try (ExecutorService threads = Executors.newFixedThreadPool(claimants)) {
      for (int i = 0; i < claimants; i++) {
        byte[] mine = ("claimant " + i).getBytes(UTF_8);
        answers.add(threads.submit(() -> {
          start.await();
          return store.putIfAbsent("claims/contended", mine);
        }));
      }
      start.countDown();
      List<Integer> winners = new ArrayList<>();
      for (int i = 0; i < claimants; i++) {
        if (answers.get(i).get()) {
          winners.add(i);
        }
      }
      assertThat(winners).hasSize(1);
      assertThat(read(store.get("claims/contended"))).asString(UTF_8).isEqualTo("claimant " + winners.getFirst());
    }
    assertThat(keys(store.list("claims/", null, 10))).containsExactly("claims/contended", "claims/first",
        "claims/put");
  }

  @Test
  void putReplacesTheObjectAndItsEtag() throws IOException {
    store.put("replaced", THOUSAND_BYTES);
    String firstEtag = store.head("replaced").orElseThrow().etag();

    store.put("replaced", "second".getBytes(UTF_8));

    assertThat(read(store.get("replaced"))).asString(UTF_8).isEqualTo("second");
    assertThat(store.head("replaced").orElseThrow().etag()).isNotEqualTo(firstEtag);
  }

  @Test
  void emptyObjectsAreObjects() throws IOException {
    store.put("empty", new byte[0]);

    assertThat(store.head("empty").orElseThrow().size()).isZero();
    assertThat(read(store.get("empty"))).isEmpty();
    assertThat(read(store.getRange("empty", 0, 0))).isEmpty();
  }

  @Test
  void getRangeReadsExactlyTheRange() throws IOException {
    store.put("range", THOUSAND_BYTES);

    long[][] ranges = {{0, 1}, {999, 1}, {0, 1000}, {123, 456}, {500, 0}, {1000, 0}};
    for (long[] range : ranges) {
      int offset = (int) range[0];
      int length = (int) range[1];
      assertThat(read(store.getRange("range", offset, length)))
          .as("bytes [%d, %d)", offset, offset + length)
          .isEqualTo(Arrays.copyOfRange(THOUSAND_BYTES, offset, offset + length));
    }
  }

  @Test
  void getRangeBeyondTheEndNamesTheUrlAndTheRange() throws IOException {
    store.put("range", THOUSAND_BYTES);
    String url = store.url("range");

    assertThatThrownBy(() -> store.getRange("range", 990, 20)).isInstanceOf(IOException.class)
        .hasMessage("Cannot read " + url + " bytes [990, 1010): the object has only 1000 bytes");
    assertThatThrownBy(() -> store.getRange("range", 1000, 1)).isInstanceOf(IOException.class)
        .hasMessage("Cannot read " + url + " bytes [1000, 1001): the object has only 1000 bytes");
    assertThatThrownBy(() -> store.getRange("range", 5000, 0)).isInstanceOf(IOException.class)
        .hasMessage("Cannot read " + url + " bytes [5000, 5000): the object has only 1000 bytes");
    assertThatThrownBy(() -> store.getRange("range", -1, 10)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid range: offset -1, length 10 (must be non-negative, with offset + length at most "
            + Long.MAX_VALUE + ")");
  }

  /**
   * Many ranges of one object read through one {@link ObjectStore#rangeReads}, as create reads an input's records:
   * each exactly its bytes and a request as {@code getRange} makes it, a range past the end refused as it refuses it,
   * and a missing object refused by the time its first range is read.
   */
  @Test
  void rangeReadsOfOneObjectAreItsRangesEachAsAGetReadsIt() throws IOException {
    store.put("ranges", THOUSAND_BYTES);
    String url = store.url("ranges");
    RequestCounts before = store.requests().snapshot();
    long[][] ranges = {{0, 1}, {999, 1}, {0, 1000}, {123, 456}, {500, 0}, {1000, 0}, {123, 456}};
    try (ObjectStore.RangeReads reads = store.rangeReads("ranges")) {
      for (long[] range : ranges) {
        int offset = (int) range[0];
        int length = (int) range[1];
        assertThat(read(reads.open(offset, length))).as("bytes [%d, %d)", offset, offset + length)
            .isEqualTo(Arrays.copyOfRange(THOUSAND_BYTES, offset, offset + length));
      }
      assertThatThrownBy(() -> reads.open(990, 20)).isInstanceOf(RangeBeyondEndException.class)
          .hasMessage("Cannot read " + url + " bytes [990, 1010): the object has only 1000 bytes");
      assertThatThrownBy(() -> reads.open(-1, 10)).isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(store.requests().minus(before).total()).as("a request per range read, as getRange makes it")
        .isEqualTo(ranges.length + 1L);

    assertThatThrownBy(() -> {
      try (ObjectStore.RangeReads reads = store.rangeReads("no/such/key")) {
        read(reads.open(0, 10));
      }
    }).isInstanceOf(NoSuchObjectException.class).hasMessage("Cannot read " + store.url("no/such/key") + ": no such object");
  }

  @Test
  void aMissingObjectIsEmptyForHeadAnErrorForGetAndNothingForDelete() throws IOException {
    assertThat(store.head("no/such/key")).isEmpty();
    assertThatThrownBy(() -> store.get("no/such/key")).isInstanceOf(NoSuchObjectException.class)
        .hasMessage("Cannot read " + store.url("no/such/key") + ": no such object");
    assertThatThrownBy(() -> store.getRange("no/such/key", 0, 10)).isInstanceOf(NoSuchObjectException.class)
        .hasMessage("Cannot read " + store.url("no/such/key") + ": no such object");
    store.delete("no/such/key");
  }

  @Test
  void deleteRemovesTheObject() throws IOException {
    store.put("doomed", THOUSAND_BYTES);

    store.delete("doomed");

    assertThat(store.head("doomed")).isEmpty();
    assertThat(store.list("", null, 10).objects()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"a/../b", "..", "../a", "a/..", "/a", ""})
  void keysWithDotDotOrALeadingSlashAreRefused(String key) {
    String message = "Invalid object key: " + key
        + " (must be '/'-separated and not empty, without a leading '/' or a '..' component)";
    assertThatThrownBy(() -> store.put(key, THOUSAND_BYTES)).hasMessage(message);
    assertThatThrownBy(() -> store.get(key)).hasMessage(message);
    assertThatThrownBy(() -> store.getRange(key, 0, 1)).hasMessage(message);
    assertThatThrownBy(() -> store.head(key)).hasMessage(message);
    assertThatThrownBy(() -> store.upload(key)).hasMessage(message);
    assertThatThrownBy(() -> store.delete(key)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  @Test
  void invalidListArgumentsAreRefused() {
    assertThatThrownBy(() -> store.list("a/../", null, 10)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid key prefix: a/../ (must be '/'-separated, without a leading '/' or a '..' component)");
    assertThatThrownBy(() -> store.list("", null, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid maxKeys: 0 (must be from 1 to 1000)");
    assertThatThrownBy(() -> store.list("", null, 1001)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid maxKeys: 1001 (must be from 1 to 1000)");
  }

  @Test
  void listPagesWalkSubdirectoriesWithAPrefixThatIsPartlyAName() throws Exception {
    putAll(List.of("data/ds/train-000.tar", "data/ds/train-001.tar", "data/ds/train-002/part-0.tar",
        "data/ds/train-002/part-1.tar", "data/ds/train-1.tar", "data/ds/test-000.tar", "data/ds/trainer.txt",
        "data/ds-other/train-000.tar", "data/train-000.tar"));

    ListPage first = store.list("data/ds/train-", null, 2);
    ListPage second = store.list("data/ds/train-", first.nextStartAfter(), 2);
    ListPage third = store.list("data/ds/train-", second.nextStartAfter(), 2);

    assertThat(keys(first)).containsExactly("data/ds/train-000.tar", "data/ds/train-001.tar");
    assertThat(first.nextStartAfter()).isEqualTo("data/ds/train-001.tar");
    assertThat(keys(second)).containsExactly("data/ds/train-002/part-0.tar", "data/ds/train-002/part-1.tar");
    assertThat(keys(third)).containsExactly("data/ds/train-1.tar");
    assertThat(third.nextStartAfter()).isNull();
    assertThat(keys(store.list("data/ds/train-", "data/ds/train-002/part-0.tar", 10)))
        .containsExactly("data/ds/train-002/part-1.tar", "data/ds/train-1.tar");
    assertThat(keys(store.list("data/ds/train-", "data/ds/train-002", 10)))
        .containsExactly("data/ds/train-002/part-0.tar", "data/ds/train-002/part-1.tar", "data/ds/train-1.tar");
    assertThat(keys(store.list("data/ds", null, 2)))
        .as("'-' sorts before '/'").containsExactly("data/ds-other/train-000.tar", "data/ds/test-000.tar");
    assertThat(keys(store.list("data/ds", "data/ds/train-1.tar", 10))).containsExactly("data/ds/trainer.txt");
    assertThat(keys(store.list("data/ds/", null, 10))).hasSize(7);
    assertThat(store.list("data/nothing-here/", null, 10).objects()).isEmpty();
    assertThat(store.list("nothing", null, 10).objects()).isEmpty();
  }

  @Test
  void aPageThatEndsAtTheLastObjectIsTheLastPage() throws Exception {
    putAll(List.of("two/a", "two/b"));

    ListPage page = store.list("two/", null, 2);

    assertThat(keys(page)).containsExactly("two/a", "two/b");
    assertThat(page.nextStartAfter()).isNull();
  }

  @Test
  void listingsAreInUtf8BinaryOrderNotJavaStringOrder() throws Exception {
    List<String> keys = List.of("order/a-b", "order/a.b", "order/a/b", "order/a0", "order/ab", "order/Z",
        "order/\u00e9", "order/\uFFFD", "order/\uD83D\uDE00", "order/\u4E2D");
    putAll(keys);

    List<String> utf8Order = keys.stream()
        .sorted((x, y) -> Arrays.compareUnsigned(x.getBytes(UTF_8), y.getBytes(UTF_8))).toList();
    assertThat(utf8Order).as("the keys tell the orders apart").isNotEqualTo(keys.stream().sorted().toList());
    assertThat(keys(store.list("order/", null, 1000))).isEqualTo(utf8Order);
    assertThat(store.listAll("order/").map(ObjectInfo::key).toList()).isEqualTo(utf8Order);
    assertThat(keys(store.list("order/", "order/a.b", 3)))
        .containsExactly("order/a/b", "order/a0", "order/ab");
  }

  @Test
  void listAllFetchesPagesOfAThousandLazily() throws Exception {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 2500; i++) {
      keys.add(String.format("many/%04d/object", i));
    }
    putAll(keys);
    RequestCounts before = store.requests().snapshot();

    assertThat(store.listAll("many/").limit(10).count()).isEqualTo(10);
    assertThat(store.requests().minus(before).list()).as("a first page only").isEqualTo(1);
    assertThat(store.listAll("many/").map(ObjectInfo::key).toList()).isEqualTo(keys);
    assertThat(store.requests().minus(before).list()).isEqualTo(1 + 3);
  }

  @Test
  void anUploadIsVisibleOnlyAfterItsCommit() throws IOException {
    ObjectInfo committed;
    try (ObjectUpload upload = store.upload("uploads/one")) {
      try (OutputStream out = upload.stream()) {
        out.write(THOUSAND_BYTES, 0, 400);
        out.write(THOUSAND_BYTES[400]);
        out.write(THOUSAND_BYTES, 401, 599);
      }
      assertThat(store.head("uploads/one")).isEmpty();
      assertThat(store.list("uploads/", null, 10).objects()).isEmpty();

      committed = upload.commit();
    }

    ObjectInfo head = store.head("uploads/one").orElseThrow();
    assertThat(committed.key()).isEqualTo("uploads/one");
    assertThat(committed.size()).isEqualTo(1000);
    assertThat(committed.etag()).isEqualTo(head.etag());
    assertThat(read(store.get("uploads/one"))).isEqualTo(THOUSAND_BYTES);
  }

  /** Content of {@code data} with its true SHA-256. */
  static HashedContent hashed(byte[] data) {
    try {
      return new HashedContent(data.length, MessageDigest.getInstance("SHA-256").digest(data),
          () -> new ByteArrayInputStream(data));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void hashedContentIsStoredWholeAndReplacesTheObject() throws IOException {
    store.put("hashed/one", "old".getBytes(UTF_8));
    store.put("hashed/one", hashed(THOUSAND_BYTES));
    assertThat(read(store.get("hashed/one"))).isEqualTo(THOUSAND_BYTES);
    store.put("hashed/empty", hashed(new byte[0]));
    assertThat(store.head("hashed/empty").orElseThrow().size()).isZero();
  }

  @Test
  void hashedContentShorterOrLongerThanAnnouncedIsRefusedAndLeavesNothing() {
    for (int announced : new int[] {999, 1001}) {
      HashedContent wrong = new HashedContent(announced, hashed(THOUSAND_BYTES).sha256(),
          () -> new ByteArrayInputStream(THOUSAND_BYTES));
      assertThatThrownBy(() -> store.put("hashed/wrong", wrong)).isInstanceOf(IOException.class)
          .hasMessageContaining(store.url("hashed/wrong"));
    }
    assertThat(store.listAll("hashed/").toList()).isEmpty();
  }

  /** Content read from {@code data} at any offset, as a local file is. */
  static RangedContent ranged(byte[] data, long length) {
    return new RangedContent() {
      @Override
      public long length() {
        return length;
      }

      @Override
      public InputStream open(long offset, long wanted) {
        int from = (int) Math.min(offset, data.length);
        return new ByteArrayInputStream(data, from, (int) Math.min(wanted, data.length - from));
      }
    };
  }

  @Test
  void rangedContentIsStoredWholeAndReplacesTheObject() throws IOException {
    store.put("ranged/one", "old".getBytes(UTF_8));
    store.put("ranged/one", ranged(THOUSAND_BYTES, THOUSAND_BYTES.length));
    assertThat(read(store.get("ranged/one"))).isEqualTo(THOUSAND_BYTES);
    store.put("ranged/empty", ranged(new byte[0], 0));
    assertThat(store.head("ranged/empty").orElseThrow().size()).isZero();
  }

  @Test
  void rangedContentShorterThanItsLengthIsRefusedAndLeavesNothing() {
    assertThatThrownBy(() -> store.put("ranged/short", ranged(THOUSAND_BYTES, 1001)))
        .isInstanceOf(IOException.class).hasMessageContaining(store.url("ranged/short"))
        .hasMessageContaining("ended after 1000 of the 1001 bytes");
    assertThat(store.listAll("ranged/").toList()).isEmpty();
  }

  @Test
  void anEmptyUploadMakesAnEmptyObject() throws IOException {
    try (ObjectUpload upload = store.upload("uploads/empty")) {
      assertThat(upload.commit().size()).isZero();
    }
    assertThat(store.head("uploads/empty").orElseThrow().size()).isZero();
  }

  @Test
  void anAbortedUploadLeavesNothing() throws IOException {
    ObjectUpload upload = store.upload("uploads/aborted");
    upload.stream().write(THOUSAND_BYTES);

    upload.abort();
    upload.abort();
    upload.close();

    assertThat(store.head("uploads/aborted")).isEmpty();
    assertThat(store.list("", null, 10).objects()).isEmpty();
    assertThatThrownBy(() -> upload.stream().write(1)).isInstanceOf(IOException.class)
        .hasMessage("Cannot write " + store.url("uploads/aborted") + ": the upload was already aborted");
    assertThatThrownBy(upload::commit).isInstanceOf(IOException.class)
        .hasMessage("Cannot commit " + store.url("uploads/aborted") + ": the upload was already aborted");
  }

  @Test
  void closingAnUploadWithoutCommitLeavesNothing() throws IOException {
    try (ObjectUpload upload = store.upload("uploads/closed")) {
      upload.stream().write(THOUSAND_BYTES);
    }

    assertThat(store.head("uploads/closed")).isEmpty();
    assertThat(store.list("", null, 10).objects()).isEmpty();
  }

  @Test
  void aCommittedUploadCannotBeWrittenOrCommittedAgainButClosesQuietly() throws IOException {
    ObjectUpload upload = store.upload("uploads/done");
    upload.stream().write(THOUSAND_BYTES);
    upload.commit();

    upload.abort();
    upload.close();
    upload.stream().close();

    assertThat(store.head("uploads/done")).isPresent();
    assertThatThrownBy(() -> upload.stream().write(1)).isInstanceOf(IOException.class)
        .hasMessage("Cannot write " + store.url("uploads/done") + ": the upload was already committed");
    assertThatThrownBy(upload::commit).isInstanceOf(IOException.class)
        .hasMessage("Cannot commit " + store.url("uploads/done") + ": the upload was already committed");
  }

  @Test
  void everyOperationIsCountedByKind() throws IOException {
    RequestCounts before = store.requests().snapshot();

    store.put("counted", THOUSAND_BYTES);
    store.head("counted");
    store.head("missing");
    read(store.get("counted"));
    read(store.getRange("counted", 10, 10));
    store.list("", null, 10);
    store.delete("counted");
    try (ObjectUpload upload = store.upload("small-upload")) {
      upload.stream().write(THOUSAND_BYTES);
      upload.commit();
    }

    RequestCounts made = store.requests().minus(before);
    assertThat(made.head()).isEqualTo(2);
    assertThat(made.get()).isEqualTo(2);
    assertThat(made.put()).as("a put and a small upload").isEqualTo(2);
    assertThat(made.list()).isEqualTo(1);
    assertThat(made.delete()).isEqualTo(1);
    assertThat(made.total()).isEqualTo(8);
  }

  @Test
  void manyVirtualThreadsShareOneStore() throws Exception {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      keys.add("shared/" + i);
    }
    putAll(keys);

    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<String>> reads = new ArrayList<>();
      for (String key : keys) {
        reads.add(threads.submit(() -> new String(read(store.get(key)), UTF_8)));
      }
      for (int i = 0; i < keys.size(); i++) {
        assertThat(reads.get(i).get()).isEqualTo(keys.get(i));
      }
    }
  }
}
