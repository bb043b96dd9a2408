package dev.quarry.core.sort.plan;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.policy.Problems;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.StoredJson;
import dev.quarry.core.sort.extract.ExtractResult;
import dev.quarry.core.sort.extract.SegmentTable;
import dev.quarry.core.sort.records.StoreRunStorage;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * The done markers of every extract worker, checked to be one split of the input list into one number of partitions
 * before their runs are merged. A marker does not grow with the partitions: a partition step finds its runs by
 * listing and its segments in the packs' segment tables, so what it reads grows with the extract workers alone.
 */
final class ExtractedRuns {
  private final ObjectStore store;
  private final Scratch scratch;
  private final List<ExtractResult> results;
  private final List<PlanSummary.ExtractPack> packs;

  private ExtractedRuns(ObjectStore store, Scratch scratch, List<ExtractResult> results) {
    this.store = store;
    this.scratch = scratch;
    this.results = results;
    this.packs = packs();
  }

  /** Reads and checks the markers; {@code action} names what refuses, as in "Cannot plan: ...". */
  static ExtractedRuns read(ObjectStore store, Scratch scratch, int inputs, int extractCount, String action)
      throws IOException {
    // Read at once, checked in order (one after another, 200 extract workers were 400 requests in a row for every
    // step and the plan).
    ExtractResult[] read = new ExtractResult[extractCount];
    InFlight.all(InFlight.indexes(extractCount), InFlight.SORT_REQUESTS, index -> {
      if (store.head(scratch.extractDone(index)).isPresent()) {
        read[index] = StoredJson.read(store, scratch.extractDone(index), ExtractResult.class);
      }
    });
    List<ExtractResult> results = new ArrayList<>();
    for (int index = 0; index < extractCount; index++) {
      if (read[index] == null) {
        throw new IllegalStateException("Cannot " + action + ": extract worker " + index + " of " + extractCount
            + " has not finished (run quarry sort extract --index " + index + " first)");
      }
      ExtractResult done = read[index];
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
      if (done.partitions() != partitions) {
        throw new IllegalStateException("Cannot " + action + ": extract worker " + index + " ran with --partitions "
            + done.partitions() + ", not " + partitions + " as extract worker 0 (rerun every extract worker with"
            + " the same --partitions)");
      }
      // A key map's splitters come through it: when the key maps differ, that is the cause to name.
      if (!results.isEmpty() && !Objects.equals(done.keymapSha256(), results.getFirst().keymapSha256())) {
        throw new IllegalStateException("Cannot " + action + ": extract workers 0 and " + index + " read different"
            + " key maps (the key map object changed while they ran; clean the scratch and sort again)");
      }
      if (!results.isEmpty() && !Objects.equals(done.splittersSha256(), results.getFirst().splittersSha256())) {
        throw new IllegalStateException("Cannot " + action + ": extract workers 0 and " + index + " split the keys"
            + " into partitions differently (the input shards changed while they ran; clean the scratch and sort"
            + " again)");
      }
      checkNames(scratch, index, done, action);
      results.add(done);
    }
    return new ExtractedRuns(store, scratch, results);
  }

  /**
   * Refuses a marker whose attempt is not an attempt's id, or naming a pack that is not one its worker writes (names
   * are used as keys in scratch), or whose pack holds a negative number of bytes of records.
   */
  private static void checkNames(Scratch scratch, int index, ExtractResult done, String action) {
    boolean names = attempt(done) != null
        && (done.pack() == null ? done.packRecordBytes() == 0
            : scratch.isPartitionPack(index, done.pack()) && done.packRecordBytes() >= 0);
    if (!names) {
      throw new IllegalStateException("Cannot " + action + ": the done marker of extract worker " + index + " names"
          + " an attempt or pack that is not one of its own (the scratch was changed; clean it and sort again)");
    }
  }

  private static UUID attempt(ExtractResult done) {
    try {
      UUID attempt = done.attempt() == null ? null : UUID.fromString(done.attempt());
      return attempt != null && attempt.toString().equals(done.attempt()) ? attempt : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * Refuses a pack whose size is not its records and segment table, or whose table does not rise from 0 to the end
   * of its records: a HEAD and a ranged GET of the table per extract worker that wrote one,
   * {@value InFlight#SORT_REQUESTS} workers' at once (one after another, 200 extract workers were 400 requests in a row
   * before the plan began).
   */
  void checkPacks(String action) throws IOException {
    List<Integer> withPacks = InFlight.indexes(results.size()).stream()
        .filter(index -> results.get(index).pack() != null).toList();
    InFlight.all(withPacks, InFlight.SORT_REQUESTS, index -> {
      ExtractResult result = results.get(index);
      long expected = SegmentTable.packSize(result.packRecordBytes(), partitions());
      long size = store.head(result.pack()).map(ObjectInfo::size).orElse(-1L);
      if (size != expected) {
        throw new IllegalStateException("Cannot " + action + ": the pack of extract worker " + index
            + (size < 0 ? " does not exist" : " holds " + size + " bytes, not " + expected)
            + " (the scratch was changed; clean it and sort again)");
      }
      SegmentTable.all(store, result.pack(), result.packRecordBytes(), partitions());
    });
  }

  /**
   * Refuses workers that did not spread records over the partitions (they wrote no pack, so nothing else bears out
   * their number of partitions) whose runs of partition 0, where all their records are, are not the runs their
   * markers count: one listing per such worker, before the plan runs a step per partition.
   */
  void checkRuns(String action) throws IOException {
    StoreRunStorage storage = new StoreRunStorage(store);
    for (int index = 0; index < results.size(); index++) {
      ExtractResult result = results.get(index);
      if (result.pack() == null) {
        int worker = index;
        long listed = storage.list(scratch.extractRunsOf(index, attempt(result), 0, partitions())).stream()
            .filter(run -> scratch.isExtractRun(worker, run)).count();
        if (listed != result.runs()) {
          throw new IllegalStateException("Cannot " + action + ": extract worker " + index + " wrote " + listed
              + " runs of partition 0 of " + partitions() + ", not the " + result.runs() + " its done marker counts"
              + " (the scratch was changed; clean it and sort again)");
        }
      }
    }
  }

  /**
   * The job's key map, read again, refused when it is not the one the extract workers routed records by (its
   * SHA-256 is in their markers): the key map object may be edited while the job runs.
   */
  Keymap keymap(SortSpec spec, ObjectStores stores, Problems problems, String action) throws IOException {
    Keymap keymap = Keymap.of(spec, stores, problems);
    if (!keymap.sha256().equals(keymapSha256())) {
      throw new IllegalStateException("Cannot " + action + ": the key map object changed since the extract workers"
          + " read it (clean the scratch and sort again)");
    }
    return keymap;
  }

  /** The {@code Keymap#sha256} of the key map the extract workers routed records by, null without one. */
  String keymapSha256() {
    return results.getFirst().keymapSha256();
  }

  /** The records the extract workers found, all partitions together. */
  long records() {
    return results.stream().mapToLong(ExtractResult::records).sum();
  }

  /** How many partitions the extract workers split their runs into. */
  int partitions() {
    return results.getFirst().partitions();
  }

  /** Whether the extract workers spread records over the partitions (then each wrote a pack). */
  boolean spread() {
    return results.stream().anyMatch(result -> result.pack() != null);
  }

  /** Where each extract worker's records' bytes are: its pack and the bytes of records in it, if it wrote one. */
  List<PlanSummary.ExtractPack> packs() {
    return results.stream().map(result -> new PlanSummary.ExtractPack(result.from(), result.to(), result.pack(),
        result.packRecordBytes())).toList();
  }

  /** The pack of each extract worker, null for one that wrote none. */
  List<String> packNames() {
    return results.stream().map(ExtractResult::pack).toList();
  }

  /** Locates the packed entries of one partition's segment, reading each pack's row of it when first needed. */
  PackedEntries packedEntries() {
    return new PackedEntries(new PackSegments(store, packs), partitions());
  }

  /**
   * Every extract worker's runs of {@code partition}, in worker order: a listing of each worker's attempt's runs of
   * it, {@value InFlight#SORT_REQUESTS} at once.
   */
  List<String> runs(int partition) throws IOException {
    StoreRunStorage storage = new StoreRunStorage(store);
    List<List<String>> listed = new ArrayList<>(java.util.Collections.nCopies(results.size(), List.of()));
    InFlight.all(InFlight.indexes(results.size()), InFlight.SORT_REQUESTS, index -> {
      List<String> own = new ArrayList<>();
      for (String run : storage.list(scratch.extractRunsOf(index, attempt(results.get(index)), partition,
          partitions()))) {
        if (scratch.isExtractRun(index, run)) {
          own.add(run);
        }
      }
      synchronized (listed) {
        listed.set(index, own);
      }
    });
    return listed.stream().flatMap(List::stream).toList();
  }
}
