package dev.quarry.core.sort.records;

import dev.quarry.core.concurrent.InFlight;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.function.ToIntFunction;

/**
 * Sorts more entries than fit in memory: entries are gathered up to a memory budget, sorted and spilled as runs, and
 * the runs merged when read. Memory is the budget plus one entry per run. A partitioned sorter spills one run per
 * partition that has entries, so that each partition's runs can be merged on their own; one that stages its spills
 * ({@link #stagingSpillsIn}) leaves at most one run per partition in its storage, whatever it spilled.
 */
public final class ExternalSorter {
  private final Comparator<RecordEntry> order;
  private final RunStorage storage;
  private final RunNames names;
  private final long budgetBytes;
  private final ToIntFunction<RecordEntry> partitionOf;
  private final List<List<RecordEntry>> buffers = new ArrayList<>();
  private final List<List<String>> runs = new ArrayList<>();
  private final List<List<String>> staged = new ArrayList<>();
  /** The size of each run spilled, by name. */
  private final Map<String, Long> runBytes = new java.util.concurrent.ConcurrentHashMap<>();
  private RunStorage stagingStorage;
  private RunNames stagingNames;
  private long bufferedBytes;
  private long entries;
  private long peakBufferedBytes;
  private long totalEstimatedBytes;

  /** Runs named the prefix and the run's number in six digits, merge passes' runs numbered after the spilled. */
  public ExternalSorter(Comparator<RecordEntry> order, RunStorage storage, String prefix, long budgetBytes) {
    this(order, storage, (partition, number) -> String.format("%s%06d.run", prefix, number), budgetBytes, 1,
        entry -> 0);
  }

  /**
   * Runs of each of {@code partitions} partitions, {@code partitionOf} saying which an entry belongs to, named by
   * {@code names}.
   */
  public ExternalSorter(Comparator<RecordEntry> order, RunStorage storage, RunNames names, long budgetBytes,
      int partitions, ToIntFunction<RecordEntry> partitionOf) {
    this.order = order;
    this.storage = storage;
    this.names = names;
    this.budgetBytes = budgetBytes;
    this.partitionOf = partitionOf;
    for (int partition = 0; partition < partitions; partition++) {
      buffers.add(new ArrayList<>());
      runs.add(new ArrayList<>());
      staged.add(new ArrayList<>());
    }
  }

  /**
   * Spills to {@code local} (runs named by {@code localNames}) and, at {@link #finishPartitioned}, merges each
   * partition's spills into one run in this sorter's storage, its number 0; a sorter whose entries all fit in the
   * budget writes them there at once, as without staging. So an extract worker that spills S times writes, and every
   * partition step reads, one run per partition, not S: W x P x S objects written, read and deleted over a job (S
   * is about 40 for 100 GiB of 1 KiB records per worker under a 1Gi budget), and S times the runs a step merges, in
   * passes past {@link RunMerger#FAN_IN}. Call before the first entry.
   */
  public ExternalSorter stagingSpillsIn(RunStorage local, RunNames localNames) {
    if (entries > 0) {
      throw new IllegalStateException("Spills are staged from the first entry on");
    }
    this.stagingStorage = local;
    this.stagingNames = localNames;
    return this;
  }

  /** The runs staged so far, not yet merged. */
  public int stagedRuns() {
    return staged.stream().mapToInt(List::size).sum();
  }

  public void add(RecordEntry entry) throws IOException {
    buffers.get(partitionOf.applyAsInt(entry)).add(entry);
    long estimate = entry.estimatedHeapBytes();
    bufferedBytes += estimate;
    totalEstimatedBytes += estimate;
    peakBufferedBytes = Math.max(peakBufferedBytes, bufferedBytes);
    entries++;
    if (bufferedBytes >= budgetBytes) {
      spill();
    }
  }

  /**
   * Sorts what is buffered and writes it as the next run of each partition that has entries (staged, when this
   * sorter stages its spills), {@value InFlight#SORT_REQUESTS} runs at once (one after another, an extract worker of
   * 1,000 partitions made 1,000 requests in a row at each spill). A partition's runs are numbered from 0 on their own,
   * so its runs are its first {@code n} names whatever the other partitions held: a reader that knows how many there
   * are names them without listing.
   */
  private void spill() throws IOException {
    if (stagingStorage != null) {
      spillTo(stagingStorage, stagingNames, staged);
    } else {
      spillTo(storage, names, runs);
    }
  }

  private void spillTo(RunStorage target, RunNames targetNames, List<List<String>> written) throws IOException {
    Map<Integer, String> spilled = new LinkedHashMap<>();
    for (int partition = 0; partition < buffers.size(); partition++) {
      if (!buffers.get(partition).isEmpty()) {
        spilled.put(partition, targetNames.of(partition, written.get(partition).size()));
      }
    }
    InFlight.all(spilled.keySet(), InFlight.SORT_REQUESTS, partition -> {
      List<RecordEntry> buffer = buffers.get(partition);
      buffer.sort(order);
      try (RunWriter writer = new RunWriter(target.create(spilled.get(partition)))) {
        for (RecordEntry entry : buffer) {
          writer.write(entry);
        }
        writer.finish();
        runBytes.put(spilled.get(partition), writer.bytes());
      }
    });
    spilled.forEach((partition, name) -> {
      written.get(partition).add(name);
      buffers.get(partition).clear();
    });
    bufferedBytes = 0;
  }

  /** Spills what is left and returns the names of all runs written (of a sorter of one partition). */
  public List<String> finish() throws IOException {
    return finishPartitioned().getFirst();
  }

  /**
   * Spills what is left and returns the names of the runs written, partition by partition. A sorter that staged
   * spills merges each partition's into one run, up to {@value InFlight#SORT_REQUESTS} partitions at once while the
   * readers and uploads of those under way fit in the budget (the buffer is empty by then), each deleting its
   * staged runs once merged.
   */
  public List<List<String>> finishPartitioned() throws IOException {
    if (stagingStorage == null || staged.stream().allMatch(List::isEmpty)) {
      spillTo(storage, names, runs);
    } else {
      spillTo(stagingStorage, stagingNames, staged);
      mergeStaged();
    }
    return runs.stream().map(List::copyOf).toList();
  }

  private void mergeStaged() throws IOException {
    List<Integer> partitions = InFlight.indexes(staged.size()).stream()
        .filter(partition -> !staged.get(partition).isEmpty()).toList();
    int budgetKib = (int) Math.clamp(budgetBytes >> 10, 1, Integer.MAX_VALUE);
    Semaphore memory = new Semaphore(budgetKib);
    InFlight.all(partitions, InFlight.SORT_REQUESTS, partition -> {
      List<String> spilled = staged.get(partition);
      int need = (int) Math.clamp(mergeBytes(spilled) >> 10, 1, budgetKib);
      memory.acquireUninterruptibly(need);
      int[] passRuns = {spilled.size()};
      try (RunMerger merger = RunMerger.openConsuming(stagingStorage, spilled, order,
          () -> stagingNames.of(partition, passRuns[0]++));
          RunWriter writer = new RunWriter(storage.create(names.of(partition, 0)))) {
        for (RecordEntry entry = merger.next(); entry != null; entry = merger.next()) {
          writer.write(entry);
        }
        writer.finish();
      } finally {
        memory.release(need);
      }
    });
    for (int partition : partitions) {
      runs.get(partition).add(names.of(partition, 0));
      staged.get(partition).clear();
    }
  }

  /**
   * What merging {@code spilled} into one run of the storage holds: a reader of each run merged at once (past the
   * fan-in, passes whose runs fill whole windows) and a writer with its storage's upload of them all.
   */
  private long mergeBytes(List<String> spilled) {
    long total = spilled.stream().mapToLong(runBytes::get).sum();
    long readers = spilled.size() > RunMerger.FAN_IN ? RunMerger.FAN_IN * RunMerger.readerBytes(Long.MAX_VALUE)
        : spilled.stream().mapToLong(run -> RunMerger.readerBytes(runBytes.get(run))).sum();
    return readers + RunWriter.BUFFER_BYTES + storage.writeBufferBytes(total);
  }

  /**
   * All entries in order (of a sorter of one partition): spills the rest, then merges every run, in passes when there
   * are many (their runs are numbered after the spilled ones, and deleted by the merger).
   */
  public RunMerger sorted() throws IOException {
    List<String> spilled = finish();
    int[] passRuns = {spilled.size()};
    return RunMerger.open(storage, spilled, order, () -> names.of(0, passRuns[0]++));
  }

  /** The name of run {@code number} (from 0, counted within the partition) of partition {@code partition}. */
  @FunctionalInterface
  public interface RunNames {
    String of(int partition, int number);
  }

  public long entries() {
    return entries;
  }

  /** Estimated heap bytes one buffered entry takes, on average. */
  public long bytesPerEntry() {
    return entries == 0 ? 0 : totalEstimatedBytes / entries;
  }

  /** The most heap the buffer held at once, as estimated. */
  public long peakBufferedBytes() {
    return peakBufferedBytes;
  }
}
