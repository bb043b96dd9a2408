package dev.quarry.core.sort.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.sort.SortFixture;
import dev.quarry.core.sort.input.InputShard;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeySampleTest {
  @TempDir Path temp;

  /** {@code dataset} written as plain tar shards, as the job's input list. */
  private List<InputShard> written(ObjectStores stores, List<List<Record>> dataset) throws Exception {
    List<InputShard> inputs = new ArrayList<>();
    for (String url : SortFixture.write(stores, temp + "/", ShardFormat.TAR, dataset)) {
      inputs.add(new InputShard(inputs.size(), url, ShardFormat.TAR));
    }
    return inputs;
  }

  private static Record record(String key, int bytes) {
    return new Record(key, List.of(new Member(key + ".bin", new byte[bytes])));
  }

  /**
   * {@code shards} shards of {@code perShard} records as {@code quarry gen} makes them (a label, then an image of
   * {@code bytes} give or take a quarter), keys in shard order.
   */
  private static List<List<Record>> inKeyOrder(int shards, int perShard, int bytes) {
    var factory = new dev.quarry.core.gen.RecordFactory(new dev.quarry.core.gen.DatasetSpec("in", shards, perShard,
        bytes, 25, 1000, ShardFormat.TAR, 1));
    List<List<Record>> dataset = new ArrayList<>();
    for (int shard = 0; shard < shards; shard++) {
      List<Record> records = new ArrayList<>();
      for (int i = 0; i < perShard; i++) {
        records.add(factory.record(shard, i));
      }
      dataset.add(records);
    }
    return dataset;
  }

  /** The records of the largest of the partitions {@code splitters} cut the dataset's keys into, over N/P. */
  private static double largestOverEven(List<List<Record>> dataset, List<String> splitters, int partitions) {
    int[] sizes = new int[partitions];
    long records = 0;
    for (List<Record> shard : dataset) {
      for (Record record : shard) {
        int partition = 0;
        while (partition < splitters.size()
            && dev.quarry.core.sort.order.KeyOrder.compareKeys(record.key(), splitters.get(partition)) >= 0) {
          partition++;
        }
        sizes[partition]++;
        records++;
      }
    }
    return java.util.Arrays.stream(sizes).max().orElseThrow() / ((double) records / partitions);
  }

  private List<String> splitters(List<List<Record>> dataset, int partitions) throws Exception {
    try (ObjectStores stores = new ObjectStores(S3Settings.defaults())) {
      return KeySample.splitters(written(stores, dataset), stores, partitions, UnaryOperator.identity());
    }
  }

  /**
   * Records of 100 KiB, shards written in key order, as many partitions as shards: windows of a few KiB rarely held a
   * header, so the sample held about one key a shard and one partition twice N/P. A window of a record and a block
   * holds a header wherever it starts.
   */
  @Test
  void largeRecordsInShardsWrittenInKeyOrderAreCutEvenly() throws Exception {
    List<List<Record>> dataset = inKeyOrder(16, 40, 100 << 10);
    List<String> splitters = splitters(dataset, 16);
    assertThat(splitters).hasSize(15);
    assertThat(largestOverEven(dataset, splitters, 16)).as("the largest of 16 partitions over N/P")
        .isLessThanOrEqualTo(1.25);
  }

  /**
   * One record of 64 MiB (or a header that claims as much) among the 160 the first windows of 16 shards found: their
   * mean span, 412 KiB, made every window that long, so the sample's points collapsed from 128 to 9 and each shard
   * kept about its first keys (1.94 x N/P on 16 shards of 2,000 records of 1 KiB, found by review). Spans far over the
   * median are left out, and the points stay those of the sample without it.
   */
  @Test
  void oneHugeRecordDoesNotLengthenEveryWindow() {
    long[] spans = new long[160];
    java.util.Arrays.fill(spans, 2560);
    spans[0] = 1024;
    long[] withHuge = spans.clone();
    withHuge[159] = 64L << 20;
    java.util.Arrays.sort(withHuge);
    assertThat(KeySample.typicalSpan(withHuge)).isEqualTo(KeySample.typicalSpan(spans)).isLessThan(2560);
    long[] sizes = new long[16];
    java.util.Arrays.fill(sizes, 5L << 20);
    sizes[0] += 64L << 20;
    long points = KeySample.spread(sizes, 16, 16, KeySample.typicalSpan(withHuge)).stream().mapToLong(List::size)
        .sum();
    long meanPoints = KeySample.spread(sizes, 16, 16, java.util.Arrays.stream(withHuge).sum() / withHuge.length)
        .stream().mapToLong(List::size).sum();
    assertThat(points).as("points, where the mean span gave " + meanPoints).isEqualTo(128);
  }

  /** Records of 1 MiB, fewer shards than partitions: the points through each shard cut it where its keys are. */
  @Test
  void recordsOfAMebibyteInFewerShardsThanPartitionsAreCutEvenly() throws Exception {
    List<List<Record>> dataset = inKeyOrder(4, 40, 1 << 20);
    List<String> splitters = splitters(dataset, 16);
    assertThat(largestOverEven(dataset, splitters, 16)).as("the largest of 16 partitions over N/P")
        .isLessThanOrEqualTo(1.25);
  }

  /**
   * Keys in random order, 64 partitions: 1 MiB of sample held about 11 keys a partition, and partitions varied by
   * about a third; {@code KEYS_PER_PARTITION} keys a partition keep the largest within 1.25 x N/P.
   */
  @Test
  void randomKeysAreCutIntoSixtyFourEvenPartitions() throws Exception {
    java.util.Random random = new java.util.Random(20);
    List<List<Record>> dataset = new ArrayList<>();
    for (int shard = 0; shard < 16; shard++) {
      List<Record> records = new ArrayList<>();
      for (int i = 0; i < 4000; i++) {
        records.add(record(String.format("r-%016x", random.nextLong()), 1024));
      }
      dataset.add(records);
    }
    List<String> splitters = splitters(dataset, 64);
    assertThat(splitters).hasSize(63);
    assertThat(largestOverEven(dataset, splitters, 64)).as("the largest of 64 partitions over N/P")
        .isLessThanOrEqualTo(1.25);
  }

  /**
   * Shards written in key order, fewer than the partitions: a sample of each shard's first 16 KiB put every splitter
   * among the first ten keys of each shard, so four partitions held a whole shard each (4 times N/P) and twelve almost
   * nothing. Windows spread through each shard cut it where its keys are.
   */
  @Test
  void shardsInKeyOrderAreCutEvenlyEvenWhenThereAreFewerShardsThanPartitions() throws Exception {
    List<List<Record>> dataset = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    for (int shard = 0; shard < 4; shard++) {
      List<Record> records = new ArrayList<>();
      for (int i = 0; i < 600; i++) {
        String key = String.format("sample-%09d", shard * 600 + i);
        records.add(record(key, 1024));
        keys.add(key);
      }
      dataset.add(records);
    }
    try (ObjectStores stores = new ObjectStores(S3Settings.defaults())) {
      List<InputShard> inputs = written(stores, dataset);
      List<String> splitters = KeySample.splitters(inputs, stores, 16, UnaryOperator.identity());
      int[] sizes = new int[16];
      for (String key : keys) {
        int partition = 0;
        while (partition < splitters.size()
            && dev.quarry.core.sort.order.KeyOrder.compareKeys(key, splitters.get(partition)) >= 0) {
          partition++;
        }
        sizes[partition]++;
      }
      assertThat(splitters).hasSize(15);
      assertThat(java.util.Arrays.stream(sizes).max().orElseThrow()).as("the largest of 16 partitions of "
          + keys.size() + " keys: " + java.util.Arrays.toString(sizes)).isLessThanOrEqualTo(keys.size() * 5 / 4 / 16);
    }
  }

  /**
   * What the sample reads is bounded whatever the shards and records: besides each shard's first window, at most
   * {@code POINTS_PER_PARTITION} windows a partition and {@code MAX_POINTS}, and bytes at most {@code MAX_BYTES} and
   * no more than the most of {@code BYTES_PER_PARTITION} a partition, 1/{@code INPUT_FRACTION} of the input and the
   * points at a record each; every window inside its shard, at a block boundary, after the first window, none
   * overlapping another, each a record and a block long unless the shard ends first.
   */
  @Test
  void theWindowsOfTheSampleAreBoundedAndLieInsideTheirShards() {
    for (int partitions : new int[] {2, 16, 1000, 99_999}) {
      for (int shards : new int[] {1, 3, 16, 64, 4096}) {
        for (long size : new long[] {700, 16 << 10, 1 << 20, 3L << 30, (1L << 40) + 123}) {
          for (long span : new long[] {512, 1536, 100 << 10, 1 << 20, 1L << 36}) {
            long[] sizes = new long[Math.min(shards, KeySample.shardsSampled(shards * 10, partitions))];
            java.util.Arrays.fill(sizes, size);
            List<List<KeySample.Window>> spread = KeySample.spread(sizes, shards * 10, partitions, span);
            String what = partitions + " partitions, " + sizes.length + " shards of " + size + " bytes, records of "
                + span;
            long first = Math.min(size, KeySample.FIRST_WINDOW);
            long points = spread.stream().mapToLong(List::size).sum();
            long bytes = first * sizes.length
                + spread.stream().flatMap(List::stream).mapToLong(KeySample.Window::length).sum();
            long shortest = (span + 511) / 512 * 512 + 512;
            long mostPoints = Math.min(KeySample.MAX_POINTS, (long) partitions * KeySample.POINTS_PER_PARTITION);
            assertThat(points).as(what).isLessThanOrEqualTo(mostPoints);
            assertThat(bytes).as(what).isLessThanOrEqualTo(KeySample.MAX_BYTES);
            assertThat((double) bytes).as(what).isLessThanOrEqualTo(Math.max(Math.max(
                (double) partitions * KeySample.BYTES_PER_PARTITION, (double) size * shards * 10
                    / KeySample.INPUT_FRACTION), first * sizes.length + mostPoints * shortest));
            for (List<KeySample.Window> windows : spread) {
              long end = first;
              for (KeySample.Window window : windows) {
                assertThat(window.offset() % 512).as(what).isZero();
                assertThat(window.offset()).as(what).isGreaterThanOrEqualTo(end);
                end = window.offset() + window.length();
                assertThat(end).as(what).isLessThanOrEqualTo(size);
                assertThat(window.length()).as(what).isEqualTo(Math.min(window.length(), size - window.offset()))
                    .isGreaterThanOrEqualTo(Math.min(shortest, size - window.offset()));
              }
            }
          }
        }
      }
    }
  }

  /**
   * A content order's splitters cut the sampled records by content key, then key, in the order's direction: records
   * whose content member is missing or does not parse are left out.
   */
  @Test
  void contentSplittersCutTheSampledContentKeysInTheOrdersDirection() throws Exception {
    List<List<Record>> dataset = new ArrayList<>();
    for (int shard = 0; shard < 4; shard++) {
      List<Record> records = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        String key = String.format("k%d-%d", shard, i);
        records.add(new Record(key, List.of(new Member(key + ".score",
            Integer.toString(shard * 10 + i).getBytes(java.nio.charset.StandardCharsets.US_ASCII)))));
      }
      records.add(new Record("lacking" + shard, List.of(new Member("lacking" + shard + ".bin", new byte[10]))));
      records.add(new Record("malformed" + shard, List.of(new Member("malformed" + shard + ".score",
          "x".getBytes(java.nio.charset.StandardCharsets.US_ASCII)))));
      records.add(new Record("late" + shard, List.of(new Member("late" + shard + ".bin", new byte[20000]),
          new Member("late" + shard + ".score", "-5".getBytes(java.nio.charset.StandardCharsets.US_ASCII)))));
      dataset.add(records);
    }
    try (ObjectStores stores = new ObjectStores(S3Settings.defaults())) {
      List<InputShard> inputs = written(stores, dataset);
      dev.quarry.core.sort.spec.SortSpec.Order descending = new dev.quarry.core.sort.spec.SortSpec.Order(
          dev.quarry.core.sort.spec.OrderKind.CONTENT, true, null, new dev.quarry.core.sort.spec.SortSpec.ContentKey(
              "score", dev.quarry.core.sort.spec.SortSpec.ContentType.INT), null);
      // The sample reads these small shards whole: 20 content keys, 34 down to 0, then the late records' -5 last
      // (lacking and malformed records are left out): of 24, the second, third and fourth quarters start at 23, 12
      // and 1.
      assertThat(KeySample.contentSplitters(inputs, stores, 4, descending))
          .extracting(splitter -> splitter.contentKey() + " " + splitter.key())
          .containsExactly("23 k2-3", "12 k1-2", "1 k0-1");
    }
  }
}
