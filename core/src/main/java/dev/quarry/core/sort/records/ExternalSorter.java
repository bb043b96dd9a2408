package dev.quarry.core.sort.records;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Sorts more entries than fit in memory: entries are gathered up to a memory budget, sorted and spilled as runs, and
 * the runs merged when read. Memory is the budget plus one entry per run.
 */
public final class ExternalSorter {
  private final Comparator<RecordEntry> order;
  private final RunStorage storage;
  private final String prefix;
  private final long budgetBytes;
  private final List<RecordEntry> buffer = new ArrayList<>();
  private final List<String> runs = new ArrayList<>();
  private long bufferedBytes;
  private int runNames;
  private long entries;
  private long peakBufferedBytes;
  private long totalEstimatedBytes;

  public ExternalSorter(Comparator<RecordEntry> order, RunStorage storage, String prefix, long budgetBytes) {
    this.order = order;
    this.storage = storage;
    this.prefix = prefix;
    this.budgetBytes = budgetBytes;
  }

  public void add(RecordEntry entry) throws IOException {
    buffer.add(entry);
    long estimate = entry.estimatedHeapBytes();
    bufferedBytes += estimate;
    totalEstimatedBytes += estimate;
    peakBufferedBytes = Math.max(peakBufferedBytes, bufferedBytes);
    entries++;
    if (bufferedBytes >= budgetBytes) {
      spill();
    }
  }

  /** Sorts what is buffered and writes it as the next run. */
  public void spill() throws IOException {
    if (buffer.isEmpty()) {
      return;
    }
    buffer.sort(order);
    String name = nextRunName();
    try (RunWriter writer = new RunWriter(storage.create(name))) {
      for (RecordEntry entry : buffer) {
        writer.write(entry);
      }
    }
    runs.add(name);
    buffer.clear();
    bufferedBytes = 0;
  }

  /** Spills what is left and returns the names of all runs written. */
  public List<String> finish() throws IOException {
    spill();
    return List.copyOf(runs);
  }

  /**
   * All entries in order: spills the rest, then merges every run, in passes when there are many (their runs are
   * named after the spilled ones, and deleted by the merger).
   */
  public RunMerger sorted() throws IOException {
    return RunMerger.open(storage, finish(), order, this::nextRunName);
  }

  private String nextRunName() {
    return String.format("%s%06d.run", prefix, runNames++);
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
