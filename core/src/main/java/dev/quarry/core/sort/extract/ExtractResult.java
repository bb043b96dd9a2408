package dev.quarry.core.sort.extract;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.quarry.core.json.Json;
import dev.quarry.core.sort.plan.Partitioner;
import dev.quarry.core.sync.cas.Digest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * What one extract worker did, written as its done marker.
 *
 * @param index the worker's index
 * @param count how many extract workers share the inputs; a marker of another count is another split, so stale
 * @param partitions how many partitions its runs are split into, from 1 to {@link Partitioner#MAX_PARTITIONS}; a
 *     marker of another number is stale too
 * @param from the first input shard (index in the input list) this worker read
 * @param to one past the last input shard it read
 * @param shards input shards read
 * @param missingShards input shards that did not exist (under an ignore or warn policy)
 * @param records records found
 * @param bytes raw tar bytes of those records
 * @param inputBytes bytes read from the input objects
 * @param attempt the attempt that wrote its runs and pack
 * @param runs how many sorted runs it wrote, all partitions together
 * @param runsByPartition how many runs of each partition it wrote, in partition order, as partitions in a row with as
 *     many runs each ({@link PartitionRuns}): its runs of partition p are {@code Scratch#extractRun} 0 to that count
 *     less one, so a partition step and the plan name them without a listing, and no other attempt's run is named. A
 *     worker whose spills each held records of every partition has one pair whatever the partitions
 * @param peakMetadataBytes the most record metadata held in memory at once (estimated)
 * @param metadataBytesPerRecord heap bytes of one record's metadata (estimated, on average)
 * @param pack the object holding its records' bytes partition by partition, then their {@link SegmentTable}, or
 *     null when records stay where they are (one partition, or an order that does not spread records over
 *     partitions)
 * @param packRecordBytes the bytes of records in the pack, where its segment table starts; 0 without a pack
 * @param splittersSha256 the SHA-256 (hex) of the JSON of the keys that start partitions 1, 2, ... of an
 *     alphanumeric or key map order, from the input sample: workers that split differently are refused without every marker
 *     carrying every key; null without splitters
 * @param keymapSha256 the {@code Keymap#sha256} of the key map it routed records by, null for an order of no key map:
 *     the partition steps and the plan read the key map object again, and refuse one edited meanwhile
 * @param shardsGroupedOnDisk input shards whose members the worker grouped into records on its disk, past its
 *     grouping's share of the budget ({@code RecordGrouping}): shards of very many records, or whose records' members
 *     lie apart; 0 in a marker written before it was counted
 */
public record ExtractResult(int index, int count, int partitions, int from, int to, int shards, int missingShards,
    long records, long bytes, long inputBytes, String attempt, int runs, List<PartitionRuns> runsByPartition,
    long peakMetadataBytes, long metadataBytesPerRecord, String pack, long packRecordBytes, String splittersSha256,
    String keymapSha256, int shardsGroupedOnDisk) {

  public ExtractResult {
    Partitioner.checkCount(partitions); // a marker read back decides how many partition steps the plan runs
    runsByPartition = List.copyOf(checked(runsByPartition, partitions, runs));
  }

  /**
   * Refuses run counts that do not cover exactly the partitions, or do not add up to the runs: a marker read back
   * names its runs by them.
   */
  private static List<PartitionRuns> checked(List<PartitionRuns> runsByPartition, int partitions, int runs) {
    long covered = 0;
    long counted = 0;
    boolean valid = runsByPartition != null && !runsByPartition.isEmpty();
    for (PartitionRuns row : valid ? runsByPartition : List.<PartitionRuns>of()) {
      valid &= row != null && row.runs() >= 0 && row.partitions() > 0;
      if (valid) {
        covered += row.partitions();
        counted += (long) row.runs() * row.partitions();
      }
    }
    if (!valid || covered != partitions || counted != runs) {
      throw new IllegalArgumentException("Invalid extract run counts: they must cover the " + partitions
          + " partitions and add up to the " + runs + " runs");
    }
    return runsByPartition;
  }

  /** The {@code runsByPartition} of runs named partition by partition ({@code ExternalSorter#finishPartitioned}). */
  public static List<PartitionRuns> runsByPartition(List<List<String>> runs) {
    List<PartitionRuns> rows = new ArrayList<>();
    for (List<String> ofPartition : runs) {
      PartitionRuns last = rows.isEmpty() ? null : rows.getLast();
      if (last != null && last.runs() == ofPartition.size()) {
        rows.set(rows.size() - 1, new PartitionRuns(last.runs(), last.partitions() + 1));
      } else {
        rows.add(new PartitionRuns(ofPartition.size(), 1));
      }
    }
    return rows;
  }

  /** How many runs of {@code partition} this worker wrote. */
  public int runsOf(int partition) {
    int first = 0;
    for (PartitionRuns row : runsByPartition) {
      if (partition < first + row.partitions()) {
        return row.runs();
      }
      first += row.partitions();
    }
    throw new IllegalArgumentException("Invalid partition: " + partition + " (must be from 0 to " + (partitions - 1)
        + ")");
  }

  /**
   * {@code partitions} partitions in a row of which this worker wrote {@code runs} runs each: written as one array,
   * {@code [runs, partitions]}, so that 1,000 partitions of 2 runs each are {@code [[2,1000]]}.
   */
  @JsonFormat(shape = JsonFormat.Shape.ARRAY)
  @JsonPropertyOrder({"runs", "partitions"})
  public record PartitionRuns(int runs, int partitions) {}

  /** The {@code splittersSha256} of {@code splitters}. */
  public static String splittersSha256(List<String> splitters) {
    return splitters.isEmpty() ? null : HexFormat.of().formatHex(Digest.sha256().digest(Json.bytes(splitters)));
  }
}
