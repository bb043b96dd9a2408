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

  private static Record record(String key, int bytes) {
    return new Record(key, List.of(new Member(key + ".bin", new byte[bytes])));
  }

  @Test
  void theSampleReadsTheFirst16KiBOfEachShardSampled() throws Exception {
    // Four records of 3.5 KiB and the headers of two more fill 16 KiB; the many small records after them lie past it.
    List<List<Record>> dataset = new ArrayList<>();
    for (int shard = 0; shard < 32; shard++) {
      List<Record> records = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        records.add(record(String.format("k%02d-%d", shard, i), 3000));
      }
      for (int i = 0; i < 40; i++) {
        records.add(record(String.format("z%02d-%02d", shard, i), 1000));
      }
      dataset.add(records);
    }
    try (ObjectStores stores = new ObjectStores(S3Settings.defaults())) {
      List<String> urls = SortFixture.write(stores, temp + "/", ShardFormat.TAR, dataset);
      List<InputShard> inputs = new ArrayList<>();
      for (String url : urls) {
        inputs.add(new InputShard(inputs.size(), url, ShardFormat.TAR));
      }
      List<String> splitters = KeySample.splitters(inputs, stores, 2, UnaryOperator.identity());
      // Four k keys and two z keys of each shard: the middle key is a k key. Read further, it would be a z key.
      assertThat(splitters).singleElement().asString().startsWith("k");
    }
  }

  /**
   * A content order's splitters cut the sampled records by content key, then key, in the order's direction: records
   * whose content member is missing or does not parse are left out, and a content member past the sample too.
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
      List<String> urls = SortFixture.write(stores, temp + "/", ShardFormat.TAR, dataset);
      List<InputShard> inputs = new ArrayList<>();
      for (String url : urls) {
        inputs.add(new InputShard(inputs.size(), url, ShardFormat.TAR));
      }
      dev.quarry.core.sort.spec.SortSpec.Order descending = new dev.quarry.core.sort.spec.SortSpec.Order(
          dev.quarry.core.sort.spec.OrderKind.CONTENT, true, null, new dev.quarry.core.sort.spec.SortSpec.ContentKey(
              "score", dev.quarry.core.sort.spec.SortSpec.ContentType.INT), null);
      // 20 sampled content keys, 34 down to 0: the second, third and fourth quarters start at 24, 14 and 4.
      assertThat(KeySample.contentSplitters(inputs, stores, 4, descending))
          .extracting(splitter -> splitter.contentKey() + " " + splitter.key())
          .containsExactly("24 k2-4", "14 k1-4", "4 k0-4");
    }
  }
}
