package dev.quarry.core.sort.records;

import dev.quarry.core.concurrent.InFlight;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * Sorts more entries than fit in memory: entries are gathered up to a memory budget, sorted and spilled as runs, and
 * the runs merged when read. Memory is the budget plus one entry per run. A partitioned sorter spills one run per
 * partition that has entries, so that each partition's runs can be merged on their own.
 */
public final class ExternalSorter {
  private final Comparator<RecordEntry> order;
  private final RunStorage storage;
  private final RunNames names;
  private final long budgetBytes;
  private final ToIntFunction<RecordEntry> partitionOf;
  private final List<List<RecordEntry>> buffers = new ArrayList<>();
  private final List<List<String>> runs = new ArrayList<>();
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
    }
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
   * Sorts what is buffered and writes it as the next run of each partition that has entries,
   * {@value InFlight#SORT_REQUESTS} runs at once (one after another, an extract worker of 1,000 partitions made 1,000
   * requests in a row at each spill). A partition's runs are numbered from 0 on their own, so its runs are its first
   * {@code n} names whatever the other partitions held: a reader that knows how many there are names them without
   * listing.
   */
  public void spill() throws IOException {
    Map<Integer, String> spilled = new LinkedHashMap<>();
    for (int partition = 0; partition < buffers.size(); partition++) {
      if (!buffers.get(partition).isEmpty()) {
        spilled.put(partition, names.of(partition, runs.get(partition).size()));
      }
    }
    InFlight.all(spilled.keySet(), InFlight.SORT_REQUESTS, partition -> {
      List<RecordEntry> buffer = buffers.get(partition);
      buffer.sort(order);
      try (RunWriter writer = new RunWriter(storage.create(spilled.get(partition)))) {
        for (RecordEntry entry : buffer) {
          writer.write(entry);
        }
        writer.finish();
      }
    });
    spilled.forEach((partition, name) -> {
      runs.get(partition).add(name);
      buffers.get(partition).clear();
    });
    bufferedBytes = 0;
  }

  /** Spills what is left and returns the names of all runs written (of a sorter of one partition). */
  public List<String> finish() throws IOException {
    return finishPartitioned().getFirst();
  }

  /** Spills what is left and returns the names of the runs written, partition by partition. */
  public List<List<String>> finishPartitioned() throws IOException {
    spill();
    return runs.stream().map(List::copyOf).toList();
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
