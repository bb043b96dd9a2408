package dev.quarry.core.sort.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.json.Json;
import dev.quarry.core.sort.extract.ExtractResult.PartitionRuns;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ExtractResultTest {
  private static final String ATTEMPT = UUID.nameUUIDFromBytes(new byte[0]).toString();

  /** The marker of a worker whose runs of partition p were {@code runs.get(p)}. */
  private static ExtractResult marker(List<List<String>> runs) {
    int total = runs.stream().mapToInt(List::size).sum();
    return new ExtractResult(0, 1, runs.size(), 0, 409_600, 409_600, 0, 1_073_741_824L, 109_951_162_777_600L,
        109_951_162_777_600L, ATTEMPT, total, ExtractResult.runsByPartition(runs), 214_748_364_800L, 200,
        "scratch/packs/extract-00000-" + ATTEMPT + ".pack", 109_951_162_777_600L, "0".repeat(64), null, 409_600);
  }

  private static List<List<String>> runs(int... counts) {
    List<List<String>> runs = new ArrayList<>();
    for (int count : counts) {
      runs.add(Collections.nCopies(count, "run"));
    }
    return runs;
  }

  /**
   * A marker counts its runs by partition as pairs of (runs, partitions in a row with that many): a worker whose every
   * spill held records of every partition has one pair, so its marker at 1,000 partitions is the size of its marker
   * at 1 but for the digits; the counts read back as written, and name each partition's runs.
   */
  @Test
  void aMarkerCountsRunsByPartitionInPairsAndDoesNotGrowWithThePartitionsWhenEverySpillHeldEvery() throws Exception {
    ExtractResult thousand = marker(Collections.nCopies(1000, List.of("a", "b")));
    assertThat(thousand.runsByPartition()).containsExactly(new PartitionRuns(2, 1000));
    assertThat(thousand.runs()).isEqualTo(2000);
    assertThat(thousand.runsOf(0)).isEqualTo(2);
    assertThat(thousand.runsOf(999)).isEqualTo(2);
    int oneBytes = Json.bytes(marker(List.of(List.of("a", "b")))).length;
    int thousandBytes = Json.bytes(thousand).length;
    assertThat(thousandBytes).as("marker bytes at P = 1000, at P = 1: " + oneBytes)
        .isLessThanOrEqualTo(oneBytes + 9); // "1000" twice, "2000" once, for "1" and "2"
    assertThat(Json.read(Json.bytes(thousand), ExtractResult.class)).isEqualTo(thousand);

    ExtractResult mixed = marker(runs(3, 3, 0, 0, 0, 1, 3));
    assertThat(mixed.runsByPartition()).containsExactly(new PartitionRuns(3, 2), new PartitionRuns(0, 3),
        new PartitionRuns(1, 1), new PartitionRuns(3, 1));
    assertThat(List.of(0, 1, 2, 3, 4, 5, 6).stream().map(mixed::runsOf)).containsExactly(3, 3, 0, 0, 0, 1, 3);
    assertThat(Json.read(Json.bytes(mixed), ExtractResult.class)).isEqualTo(mixed);
    assertThat(new String(Json.bytes(mixed), java.nio.charset.StandardCharsets.UTF_8))
        .contains("\"runsByPartition\" : [ [ 3, 2 ], [ 0, 3 ], [ 1, 1 ], [ 3, 1 ] ]");

    // Two full spills and a last one of 500 entries over the 1,000 partitions: 2 or 3 runs, at random.
    java.util.Random random = new java.util.Random(1);
    int[] lastSpillSmall = new int[1000];
    Arrays.fill(lastSpillSmall, 2);
    for (int entry = 0; entry < 500; entry++) {
      lastSpillSmall[random.nextInt(1000)] = 3;
    }
    int lastSpillSmallBytes = Json.bytes(marker(runs(lastSpillSmall))).length;

    // The most a marker holds: counts that differ at every partition, a pair each.
    int[] alternating = new int[1000];
    for (int partition = 0; partition < alternating.length; partition++) {
      alternating[partition] = 1 + partition % 2;
    }
    ExtractResult worst = marker(runs(alternating));
    assertThat(worst.runsByPartition()).hasSize(1000);
    assertThat(Json.bytes(worst).length).as("marker bytes at P = 1000 with every count unlike the one before")
        .isLessThanOrEqualTo(thousandBytes + 1000 * 12)
        .isGreaterThan(lastSpillSmallBytes);
  }

  /** Run counts are how a partition step names runs: ones that do not cover the partitions or add up are refused. */
  @Test
  void runCountsThatDoNotCoverThePartitionsOrAddUpToTheRunsAreRefused() {
    ExtractResult good = marker(runs(2, 2, 1));
    record Forged(int partitions, int runs, List<PartitionRuns> counts) {}
    for (Forged forged : List.of(new Forged(4, 5, good.runsByPartition()), new Forged(3, 6, good.runsByPartition()),
        new Forged(3, 5, null), new Forged(3, 5, List.of()),
        new Forged(3, 5, List.of(new PartitionRuns(2, 2), new PartitionRuns(1, 1), new PartitionRuns(0, 0))),
        new Forged(3, 5, List.of(new PartitionRuns(3, 1), new PartitionRuns(-1, 1), new PartitionRuns(3, 1))),
        new Forged(3, Integer.MAX_VALUE, List.of(new PartitionRuns(Integer.MAX_VALUE, 3))))) {
      assertThatThrownBy(() -> new ExtractResult(0, 1, forged.partitions(), 0, 1, 1, 0, 1, 1, 1, ATTEMPT,
          forged.runs(), forged.counts(), 0, 0, null, 0, null, null, 0)).as(forged.toString())
          .hasMessage("Invalid extract run counts: they must cover the " + forged.partitions()
              + " partitions and add up to the " + forged.runs() + " runs");
    }
  }
}
