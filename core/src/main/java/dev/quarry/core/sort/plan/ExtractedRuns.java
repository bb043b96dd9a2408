package dev.quarry.core.sort.plan;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.StoredJson;
import dev.quarry.core.sort.extract.ExtractResult;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The done markers of every extract worker, checked to be one split of the input list into one number of partitions
 * before their runs are merged.
 */
final class ExtractedRuns {
  private final List<ExtractResult> results;
  private final List<PlanSummary.ExtractPack> packs;

  private ExtractedRuns(List<ExtractResult> results) {
    this.results = results;
    this.packs = packs();
  }

  /** Reads and checks the markers; {@code action} names what refuses, as in "Cannot plan: ...". */
  static ExtractedRuns read(ObjectStore store, Scratch scratch, int inputs, int extractCount, String action)
      throws IOException {
    List<ExtractResult> results = new ArrayList<>();
    for (int index = 0; index < extractCount; index++) {
      if (store.head(scratch.extractDone(index)).isEmpty()) {
        throw new IllegalStateException("Cannot " + action + ": extract worker " + index + " of " + extractCount
            + " has not finished (run quarry sort extract --index " + index + " first)");
      }
      ExtractResult done = StoredJson.read(store, scratch.extractDone(index), ExtractResult.class);
      if (done.count() != extractCount) {
        throw new IllegalStateException("Cannot " + action + ": extract worker " + index + " ran with --count "
            + done.count() + ", not " + extractCount + " (rerun every extract worker with --count " + extractCount
            + ")");
      }
      int expectedFrom = (int) ((long) inputs * index / extractCount);
      int expectedTo = (int) ((long) inputs * (index + 1) / extractCount);
      if (done.from() != expectedFrom || done.to() != expectedTo) {
        throw new IllegalStateException("Cannot " + action + ": extract worker " + index + " of " + extractCount
            + " read input shards " + done.from() + " to " + done.to() + ", not " + expectedFrom + " to "
            + expectedTo + " of the " + inputs + " in the input list (the inputs changed; clean the scratch and sort"
            + " again)");
      }
      int partitions = results.isEmpty() ? done.partitions() : results.getFirst().partitions();
      if (done.partitions() != partitions || done.runs() == null || done.runs().size() != partitions) {
        throw new IllegalStateException("Cannot " + action + ": extract worker " + index + " ran with --partitions "
            + done.partitions() + ", not " + partitions + " as extract worker 0 (rerun every extract worker with"
            + " the same --partitions)");
      }
      if (!results.isEmpty() && !java.util.Objects.equals(done.splitters(), results.getFirst().splitters())) {
        throw new IllegalStateException("Cannot " + action + ": extract workers 0 and " + index + " split the keys"
            + " into partitions differently (the input shards changed while they ran; clean the scratch and sort"
            + " again)");
      }
      checkNamesAndSegments(scratch, index, done, action);
      results.add(done);
    }
    return new ExtractedRuns(results);
  }

  /**
   * Refuses a marker naming a run or pack that is not one its worker writes (names are used as keys in scratch), or
   * whose pack segments are not one start per partition rising from 0, then the pack's size.
   */
  private static void checkNamesAndSegments(Scratch scratch, int index, ExtractResult done, String action) {
    boolean names = done.runs().stream().allMatch(runs -> runs != null
        && runs.stream().allMatch(run -> scratch.isExtractRun(index, run)))
        && (done.pack() == null || scratch.isPartitionPack(index, done.pack()));
    if (!names) {
      throw new IllegalStateException("Cannot " + action + ": the done marker of extract worker " + index + " names"
          + " a run or pack that is not one of its own (the scratch was changed; clean it and sort again)");
    }
    List<Long> segments = done.packSegments() == null ? List.of() : done.packSegments();
    boolean rising = done.pack() == null ? segments.isEmpty()
        : segments.size() == done.partitions() + 1 && segments.getFirst() == 0;
    for (int i = 1; rising && i < segments.size(); i++) {
      rising = segments.get(i - 1) <= segments.get(i);
    }
    if (!rising) {
      throw new IllegalStateException("Cannot " + action + ": the pack segments of extract worker " + index + " are"
          + " not " + (done.partitions() + 1) + " offsets rising from 0 (the scratch was changed; clean it and"
          + " sort again)");
    }
  }

  /** Refuses a pack whose size is not the end of its last segment: one HEAD per extract worker that wrote one. */
  void checkPackSizes(ObjectStore store, String action) throws IOException {
    for (ExtractResult result : results) {
      if (result.pack() != null) {
        long size = store.head(result.pack()).map(ObjectInfo::size).orElse(-1L);
        if (size != result.packSegments().getLast()) {
          throw new IllegalStateException("Cannot " + action + ": the pack of extract worker " + results.indexOf(result)
              + (size < 0 ? " does not exist" : " holds " + size + " bytes, not " + result.packSegments().getLast())
              + " (the scratch was changed; clean it and sort again)");
        }
      }
    }
  }

  /** The records the extract workers found, all partitions together. */
  long records() {
    return results.stream().mapToLong(ExtractResult::records).sum();
  }

  /** The keys the extract workers split an alphanumeric order's partitions at. */
  List<String> splitters() {
    return results.getFirst().splitters();
  }

  /** How many partitions the extract workers split their runs into. */
  int partitions() {
    return results.getFirst().partitions();
  }

  /** Where each extract worker's records' bytes are: its pack and segments, if it wrote one. */
  List<PlanSummary.ExtractPack> packs() {
    return results.stream().map(result -> new PlanSummary.ExtractPack(result.from(), result.to(), result.pack(),
        result.packSegments())).toList();
  }

  /** The pack of each extract worker, null for one that wrote none. */
  List<String> packNames() {
    return results.stream().map(ExtractResult::pack).toList();
  }

  /**
   * {@code entry} of {@code partition} with its range made an offset in its extract worker's pack, if that worker
   * wrote one (an extract worker's entries point into their partition's segment).
   */
  RecordEntry located(RecordEntry entry, int partition) {
    ExtractResult result = results.get(PlanSummary.ExtractPack.indexOf(packs, entry.shard()));
    if (result.pack() == null || !entry.packed()) {
      return entry;
    }
    long start = result.packSegments().get(partition);
    long end = result.packSegments().get(partition + 1);
    RawRange range = entry.ranges().getFirst();
    if (entry.ranges().size() != 1 || range.offset() < 0 || start + range.end() > end) {
      throw new IllegalStateException("Cannot read the record entries of partition " + partition + ": one points"
          + " outside the partition's segment of " + result.pack() + " (the scratch was changed; clean it and sort"
          + " again)");
    }
    return new RecordEntry(entry.key(), entry.shard(), entry.position(), true,
        List.of(new RawRange(start + range.offset(), range.length())), entry.size(), entry.contentKey());
  }

  /** Every extract worker's runs of {@code partition}. */
  List<String> runs(int partition) {
    List<String> runs = new ArrayList<>();
    results.forEach(result -> runs.addAll(result.runs().get(partition)));
    return runs;
  }
}
