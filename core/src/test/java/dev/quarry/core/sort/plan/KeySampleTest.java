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
   * What every extract worker reads for the sample is bounded whatever the shards: {@code BYTES_PER_PARTITION} per
   * partition up to {@code BYTES} (a block a shard at least), in at most {@code WINDOWS_PER_PARTITION} reads per
   * partition and {@code WINDOWS} in all (one a shard at least), each window inside its shard, starting at a block
   * boundary, none overlapping another, the first at the shard's start.
   */
  @Test
  void theWindowsOfTheSampleAreBoundedAndLieInsideTheirShards() {
    for (int partitions : new int[] {2, 16, 1000}) {
      for (int shards : new int[] {1, 3, 16, 64}) {
        for (long size : new long[] {0, 700, 16 << 10, 1 << 20, 3L << 30, (1L << 40) + 123}) {
          List<KeySample.Window> windows = KeySample.windows(size, shards, partitions);
          String what = partitions + " partitions, " + shards + " shards of " + size + " bytes: " + windows;
          long bytes = windows.stream().mapToLong(KeySample.Window::length).sum() * shards;
          assertThat((long) windows.size() * shards).as(what).isLessThanOrEqualTo(Math.max(shards,
              Math.min(KeySample.WINDOWS, (long) partitions * KeySample.WINDOWS_PER_PARTITION)));
          assertThat(bytes).as(what).isLessThanOrEqualTo(Math.max(512L * shards,
              Math.min(KeySample.BYTES, (long) partitions * KeySample.BYTES_PER_PARTITION)));
          long end = 0;
          for (KeySample.Window window : windows) {
            assertThat(window.offset() % 512).as(what).isZero();
            assertThat(window.offset()).as(what).isGreaterThanOrEqualTo(end);
            end = window.offset() + window.length();
            assertThat(end).as(what).isLessThanOrEqualTo(size);
          }
          assertThat(windows.getFirst().offset()).as(what).isZero();
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
