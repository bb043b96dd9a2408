package dev.quarry.core.sort.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.json.Json;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.store.FileStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plan's shards in pages of each partition's own: what each reader reads, and a page that was changed. */
class PlanShardsTest {
  @TempDir
  Path root;

  /**
   * Two templates over three partitions, as a key map gives: partition 1 owns shards of both templates, which lie
   * apart in plan order; pages of 3 shards.
   */
  private static List<PlannedShard> keymapShards() {
    int[][] owners = {{0, 0}, {0, 0}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 1}, {1, 2}};
    List<PlannedShard> shards = new ArrayList<>();
    int[] named = new int[2];
    for (int[] owner : owners) {
      shards.add(new PlannedShard(shards.size(), "s3://b/t" + owner[0] + "-" + named[owner[0]]++ + ".tar", owner[0],
          owner[1]));
    }
    return shards;
  }

  private static PlanSummary summary(List<PlannedShard> shards, List<PlanSummary.ShardRange> ranges) {
    return new PlanSummary("tar", List.of("s3://b/t0-{0..}.tar", "s3://b/t1-{0..}.tar"), 0, 0, 0, 0, true,
        List.of(0L, 0L), List.of(), List.of(), false, shards.size(), ranges);
  }

  @Test
  void eachPartitionsShardsAndAnyRangeAreReadFromTheirPagesAlone() throws Exception {
    List<PlannedShard> shards = keymapShards();
    List<PlanSummary.ShardRange> ranges = PlanShards.ranges(shards);
    assertThat(ranges).containsExactly(new PlanSummary.ShardRange(0, 0, 0, 2), new PlanSummary.ShardRange(0, 1, 2, 6),
        new PlanSummary.ShardRange(0, 2, 6, 7), new PlanSummary.ShardRange(1, 0, 7, 8),
        new PlanSummary.ShardRange(1, 1, 8, 10), new PlanSummary.ShardRange(1, 2, 10, 11));
    Scratch scratch = new Scratch("scratch/");
    try (FileStore store = new FileStore(root)) {
      PlanShards.write(store, scratch, shards, ranges, 3);
      assertThat(store.listAll("scratch/plan/").map(info -> info.key().substring("scratch/plan/".length())))
          .containsExactlyInAnyOrder("shards-00000-000000.json", "shards-00001-000000.json",
              "shards-00001-000001.json", "shards-00002-000000.json");
      PlanSummary plan = summary(shards, ranges);
      assertThat(plan.firstShards()).containsExactly(0, 7);

      List<String> read = new ArrayList<>();
      var counted = new dev.quarry.core.store.DelegatingStore(store) {
        @Override
        public java.io.InputStream get(String key) throws java.io.IOException {
          read.add(key.substring("scratch/plan/".length()));
          return super.get(key);
        }
      };
      assertThat(new PlanShards(counted, scratch, plan, 3).ofPartition(1)).extracting(PlannedShard::index)
          .containsExactly(2L, 3L, 4L, 5L, 8L, 9L);
      assertThat(read).containsExactly("shards-00001-000000.json", "shards-00001-000001.json");
      read.clear();
      assertThat(new PlanShards(counted, scratch, plan, 3).between(6, 9)).extracting(PlannedShard::index)
          .containsExactly(6L, 7L, 8L);
      assertThat(read).containsExactlyInAnyOrder("shards-00002-000000.json", "shards-00000-000000.json",
          "shards-00001-000001.json");
      assertThat(new PlanShards(store, scratch, plan, 3).all()).isEqualTo(shards);
    }
  }

  @Test
  void aPageWhoseShardsAreNotWhereTheSummaryHasThemIsRefused() throws Exception {
    List<PlannedShard> shards = keymapShards();
    List<PlanSummary.ShardRange> ranges = PlanShards.ranges(shards);
    Scratch scratch = new Scratch("scratch/");
    try (FileStore store = new FileStore(root)) {
      PlanShards.write(store, scratch, shards, ranges, 3);
      // Partition 2's page claims a shard of partition 1's place: create would build another worker's shard.
      store.put(scratch.planShards(2, 0), Json.bytes(new PlannedShard[] {shards.get(2), shards.get(10)}));
      assertThatThrownBy(() -> new PlanShards(store, scratch, summary(shards, ranges), 3).all())
          .hasMessage("Cannot read the plan's output shards: shard 6 is not where its page of partition 2 has it"
              + " (the scratch was changed; clean it and sort again)");
      // A page naming another shard's object: two shards would write one, and commit list it twice.
      PlanShards.write(store, scratch, shards, ranges, 3);
      PlannedShard renamed = new PlannedShard(6, shards.get(5).url(), 0, 2);
      store.put(scratch.planShards(2, 0), Json.bytes(new PlannedShard[] {renamed, shards.get(10)}));
      assertThatThrownBy(() -> new PlanShards(store, scratch, summary(shards, ranges), 3).all())
          .hasMessage("Cannot read the plan's output shards: shard 6 does not have the name its template gives it"
              + " (the scratch was changed; clean it and sort again)");
      List<PlanSummary.ShardRange> gap = new ArrayList<>(ranges);
      gap.remove(1);
      assertThatThrownBy(() -> new PlanShards(store, scratch, summary(shards, gap), 3).between(0, 1))
          .hasMessage("Cannot read the plan's output shards: its shard ranges do not follow one another (the"
              + " scratch was changed; clean it and sort again)");
    }
  }
}
