package dev.quarry.core.sort.plan;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.policy.Problems;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.StoredJson;
import dev.quarry.core.sort.extract.ExtractResult;
import dev.quarry.core.sort.extract.SegmentTable;
import dev.quarry.core.sort.order.KeyOrder;
import dev.quarry.core.sort.records.RunMerger;
import dev.quarry.core.sort.records.RunOutput;
import dev.quarry.core.sort.records.RunStorage;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import java.io.IOException;
import java.io.InputStream;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * The done markers of every extract worker, checked to be one split of the input list into one number of partitions
 * before their runs are merged. A marker names its worker's runs of each partition by counting them ({@code
 * ExtractResult#runsByPartition}, one pair when the worker held records of every partition), so a partition step
 * lists nothing and reads no pack: what it reads grows with the extract workers.
 */
final class ExtractedRuns {
  /** How many runs {@link #checkRuns} names at a time. */
  private static final int LOOKED_AT_ONCE = 4096;

  private final ObjectStore store;
  private final Scratch scratch;
  private final List<ExtractResult> results;
  private final String action;

  private ExtractedRuns(ObjectStore store, Scratch scratch, List<ExtractResult> results, String action) {
    this.store = store;
    this.scratch = scratch;
    this.results = results;
    this.action = action;
  }

  /** Reads and checks the markers; {@code action} names what refuses, as in "Cannot plan: ...". */
  static ExtractedRuns read(ObjectStore store, Scratch scratch, int inputs, int extractCount, String action)
      throws IOException {
    // Read at once, checked in order (one after another, 200 extract workers were 400 requests in a row for every
    // step and the plan).
    ExtractResult[] read = new ExtractResult[extractCount];
    InFlight.all(InFlight.indexes(extractCount), InFlight.SORT_REQUESTS, index -> {
      read[index] = StoredJson.readIfPresent(store, scratch.extractDone(index), ExtractResult.class).orElse(null);
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
      checkRunCounts(store, index, done, action);
      results.add(done);
    }
    return new ExtractedRuns(store, scratch, results, action);
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

  /**
   * Refuses a marker that counts more runs than its worker can have written: more than one of a partition on a scratch
   * in an object store, where a worker merges its spills on its own disk into one run of each partition
   * ({@code ExternalSorter#stagingSpillsIn}), and more than its records on a local scratch (each run holds an entry).
   * The steps and the plan name, look at and open every run a marker counts: a planted count of two billion would
   * have run them out of memory before any request.
   */
  private static void checkRunCounts(ObjectStore store, int index, ExtractResult done, String action) {
    int most = done.runsByPartition().stream().mapToInt(ExtractResult.PartitionRuns::runs).max().orElse(0);
    boolean possible = store.isLocal() ? done.runs() <= done.records() : most <= 1;
    if (!possible) {
      throw new IllegalStateException("Cannot " + action + ": the done marker of extract worker " + index + " counts "
          + (store.isLocal() ? done.runs() + " runs of " + done.records() + " records"
              : most + " runs of one partition, where a worker writes one to a scratch in an object store")
          + " (the scratch was changed; clean it and sort again)");
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
   * before the plan began). Returns each worker's table (null for one that wrote no pack), where the plan finds each
   * partition's segments for its create workers.
   */
  long[][] checkPacks(String action) throws IOException {
    List<Integer> withPacks = InFlight.indexes(results.size()).stream()
        .filter(index -> results.get(index).pack() != null).toList();
    long[][] tables = new long[results.size()][];
    InFlight.all(withPacks, InFlight.SORT_REQUESTS, index -> {
      ExtractResult result = results.get(index);
      long expected = SegmentTable.packSize(result.packRecordBytes(), partitions());
      long size = store.head(result.pack()).map(ObjectInfo::size).orElse(-1L);
      if (size != expected) {
        throw new IllegalStateException("Cannot " + action + ": the pack of extract worker " + index
            + (size < 0 ? " does not exist" : " holds " + size + " bytes, not " + expected)
            + " (the scratch was changed; clean it and sort again)");
      }
      tables[index] = SegmentTable.all(store, result.pack(), result.packRecordBytes(), partitions());
    });
    return tables;
  }

  /**
   * Refuses workers that did not spread records over the partitions (they wrote no pack, so nothing else bears out
   * their number of partitions) whose markers count runs of another partition than 0, where all their records are,
   * or name a run of partition 0 that does not exist: a HEAD of each such run, {@value InFlight#SORT_REQUESTS} at
   * once, {@value #LOOKED_AT_ONCE} named at a time, before the plan runs a step per partition.
   */
  void checkRuns(String action) throws IOException {
    int[] unpacked = new int[results.size()];
    for (int index = 0; index < results.size(); index++) {
      ExtractResult result = results.get(index);
      if (result.pack() == null) {
        if (result.runsOf(0) != result.runs()) {
          throw new IllegalStateException("Cannot " + action + ": extract worker " + index + " wrote no pack, yet its"
              + " done marker counts runs of partitions other than 0 (the scratch was changed; clean it and sort"
              + " again)");
        }
        unpacked[index] = result.runs();
      }
    }
    CountedRuns named = new CountedRuns(0, unpacked, action);
    for (int start = 0; start < named.size(); start += LOOKED_AT_ONCE) {
      List<Integer> window = IntStream.range(start, Math.min(named.size(), start + LOOKED_AT_ONCE)).boxed().toList();
      Set<Integer> absent = ConcurrentHashMap.newKeySet();
      InFlight.all(window, InFlight.SORT_REQUESTS, position -> {
        if (store.head(named.get(position)).isEmpty()) {
          absent.add(position);
        }
      });
      for (int position : window) { // in worker order, whichever answer came first
        if (absent.contains(position)) {
          throw missing(named.run(position), action);
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

  /**
   * Every extract worker's runs of {@code partition} in key order, named by their done markers (no listing, and no
   * run of another attempt): a run a marker names that does not exist is refused, naming its worker and partition.
   * {@code passRunNames} names the runs of merge passes ({@link RunMerger#open}), kept in {@code passStorage}.
   */
  RunMerger merged(int partition, RunStorage storage, RunStorage passStorage, Supplier<String> passRunNames)
      throws IOException {
    int[] counts = new int[results.size()];
    for (int index = 0; index < results.size(); index++) {
      counts[index] = results.get(index).runsOf(partition);
    }
    CountedRuns named = new CountedRuns(partition, counts, action);
    RunStorage refusingMissing = new RunStorage() {
      @Override
      public RunOutput create(String name) throws IOException {
        return storage.create(name);
      }

      @Override
      public InputStream open(String name) throws IOException {
        try {
          return storage.open(name);
        } catch (NoSuchObjectException e) {
          // Runs are opened in order, so the missing one is found among those that exist, and the one after.
          int position = named.indexOf(name);
          throw position >= 0 ? missing(named.run(position), action) : e;
        }
      }

      @Override
      public List<String> list(String prefix) throws IOException {
        return storage.list(prefix);
      }

      @Override
      public void delete(String name) throws IOException {
        storage.delete(name);
      }
    };
    return RunMerger.open(refusingMissing, named, KeyOrder.ENTRIES, passStorage, passRunNames);
  }

  /**
   * The runs the markers count of one partition, worker by worker, each named only when it is reached: a merge opens
   * them {@value RunMerger#FAN_IN} at a time and {@link #checkRuns} looks at {@value #LOOKED_AT_ONCE} at a time, so a
   * count forged on a local scratch, where a worker may write a run a record (two billion runs of two billion
   * records), costs the runs that exist and fails at the first that does not, where naming every counted run first
   * ran out of memory.
   */
  private final class CountedRuns extends AbstractList<String> {
    private final int partition;
    /** {@code before[w]}: the runs of the workers before worker {@code w}; the last is the size. */
    private final long[] before;

    CountedRuns(int partition, int[] counts, String action) {
      this.partition = partition;
      before = new long[counts.length + 1];
      for (int worker = 0; worker < counts.length; worker++) {
        before[worker + 1] = before[worker] + counts[worker];
      }
      if (before[counts.length] > Integer.MAX_VALUE) {
        throw new IllegalStateException("Cannot " + action + ": the extract workers' done markers count "
            + before[counts.length] + " runs of partition " + partition + ", more than they can have written (the"
            + " scratch was changed; clean it and sort again)");
      }
    }

    @Override
    public int size() {
      return (int) before[before.length - 1];
    }

    @Override
    public String get(int position) {
      return name(run(position));
    }

    ExtractRun run(int position) {
      Objects.checkIndex(position, size());
      int found = Arrays.binarySearch(before, position);
      // An exact match may be followed by workers that wrote no run of the partition: the worker is the last of them.
      int worker = found >= 0 ? found : -found - 2;
      while (before[worker + 1] == position) {
        worker++;
      }
      return new ExtractRun(worker, partition, (int) (position - before[worker]));
    }
  }

  /** Run {@code number} of partition {@code partition} that extract worker {@code worker} wrote. */
  private record ExtractRun(int worker, int partition, int number) {}

  private String name(ExtractRun run) {
    return scratch.extractRun(run.worker(), attempt(results.get(run.worker())), run.partition(), partitions(),
        run.number());
  }

  private IOException missing(ExtractRun run, String action) {
    return new IOException("Cannot " + action + ": run " + run.number() + " of partition " + run.partition()
        + " of extract worker " + run.worker() + ", which its done marker names, does not exist (the scratch was"
        + " changed; clean it and sort again)");
  }
}
