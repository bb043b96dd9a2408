package dev.quarry.core.sort.records;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Supplier;

/**
 * Merges sorted runs into one sorted stream; memory holds one entry and one reader per run, whatever the record
 * count. {@link #open} bounds the readers too: past {@value #FAN_IN} runs it merges them in passes first.
 */
public final class RunMerger implements AutoCloseable {
  /**
   * The most runs read at once. Each reader holds up to about 1.6 MiB ({@link #readerBytes}), so a merge holds
   * about 50 MiB however many runs there are (a thousand extract workers leave a thousand runs or more).
   */
  public static final int FAN_IN = 32;
  /** About what one reader holds besides its read window: two LZ4 block buffers of 256 KiB, 64 KiB of buffer. */
  private static final long READER_BUFFER_BYTES = 576L << 10;

  private final PriorityQueue<Head> heads;
  private final List<RunReader> readers;
  /** Where {@link #passRuns} are, deleted on close. */
  private final RunStorage passStorage;
  private final List<String> passRuns;

  public RunMerger(List<RunReader> readers, Comparator<RecordEntry> order) throws IOException {
    this(readers, order, null, List.of());
  }

  private RunMerger(List<RunReader> readers, Comparator<RecordEntry> order, RunStorage passStorage,
      List<String> passRuns) throws IOException {
    this.readers = readers;
    this.passStorage = passStorage;
    this.passRuns = passRuns;
    this.heads = new PriorityQueue<>(Math.max(1, readers.size()), (a, b) -> order.compare(a.entry, b.entry));
    for (RunReader reader : readers) {
      RecordEntry first = reader.next();
      if (first != null) {
        heads.add(new Head(first, reader));
      }
    }
  }

  /**
   * Every entry of {@code runs} in {@code order}, reading at most {@link #FAN_IN} runs at once: while there are more,
   * groups of them are merged into runs named by {@code passRunNames}, which are deleted once read. The order is
   * total, so the result is the same however the runs are grouped.
   */
  public static RunMerger open(RunStorage storage, List<String> runs, Comparator<RecordEntry> order,
      Supplier<String> passRunNames) throws IOException {
    return open(storage, runs, order, storage, passRunNames);
  }

  /** As {@link #open(RunStorage, List, Comparator, Supplier)}, the runs of merge passes in {@code passStorage}. */
  public static RunMerger open(RunStorage storage, List<String> runs, Comparator<RecordEntry> order,
      RunStorage passStorage, Supplier<String> passRunNames) throws IOException {
    return open(storage, runs, order, passStorage, passRunNames, List.of());
  }

  /**
   * As {@link #open(RunStorage, List, Comparator, Supplier)}, {@code runs} deleted too, each group once merged: a
   * merge of a process's own runs holds at most a group's output besides what is left of its input on the disk,
   * where keeping the input until the end held it twice.
   */
  public static RunMerger openConsuming(RunStorage storage, List<String> runs, Comparator<RecordEntry> order,
      Supplier<String> passRunNames) throws IOException {
    return open(storage, runs, order, storage, passRunNames, runs);
  }

  /** What a reader of a run of {@code runBytes} holds: its buffers and a read window of up to 1 MiB. */
  public static long readerBytes(long runBytes) {
    return READER_BUFFER_BYTES + Math.min(runBytes, WindowedRead.WINDOW_BYTES);
  }

  private static RunMerger open(RunStorage storage, List<String> runs, Comparator<RecordEntry> order,
      RunStorage passStorage, Supplier<String> passRunNames, List<String> consumed) throws IOException {
    // Not copied: a caller may name its runs as they are reached (a plan's extract runs), and open reads them alone.
    List<String> current = runs;
    List<String> written = new ArrayList<>(consumed);
    while (current.size() > FAN_IN) {
      List<String> next = new ArrayList<>();
      for (int start = 0; start < current.size(); start += FAN_IN) {
        List<String> group = current.subList(start, Math.min(current.size(), start + FAN_IN));
        if (group.size() == 1) {
          next.add(group.getFirst());
          continue;
        }
        String merged = passRunNames.get();
        try (RunMerger merger = new RunMerger(readers(storage, passStorage, group, written), order, passStorage,
            passRunsOf(group, written));
            RunWriter writer = new RunWriter(passStorage.create(merged))) {
          for (RecordEntry entry = merger.next(); entry != null; entry = merger.next()) {
            writer.write(entry);
          }
          writer.finish();
        }
        written.add(merged);
        next.add(merged);
      }
      current = next;
    }
    return new RunMerger(readers(storage, passStorage, current, written), order, passStorage,
        passRunsOf(current, written));
  }

  private static List<String> passRunsOf(List<String> runs, List<String> written) {
    return runs.stream().filter(written::contains).toList();
  }

  /** Readers of {@code runs}: those in {@code passRuns} from {@code passStorage}, the others from {@code storage}. */
  private static List<RunReader> readers(RunStorage storage, RunStorage passStorage, List<String> runs,
      List<String> passRuns) throws IOException {
    List<RunReader> readers = new ArrayList<>(runs.size());
    try {
      for (String run : runs) {
        readers.add(new RunReader((passRuns.contains(run) ? passStorage : storage).open(run), run));
      }
    } catch (IOException e) {
      for (RunReader reader : readers) {
        reader.close();
      }
      throw e;
    }
    return readers;
  }

  /** The next entry in order, or null when every run is exhausted. */
  public RecordEntry next() throws IOException {
    Head head = heads.poll();
    if (head == null) {
      return null;
    }
    RecordEntry entry = head.entry;
    RecordEntry following = head.reader.next();
    if (following != null) {
      heads.add(new Head(following, head.reader));
    }
    return entry;
  }

  /** Closes the readers and deletes the runs an earlier pass wrote for this merge. */
  @Override
  public void close() throws IOException {
    IOException failure = null;
    for (RunReader reader : readers) {
      try {
        reader.close();
      } catch (IOException e) {
        failure = e;
      }
    }
    for (String run : passRuns) {
      try {
        passStorage.delete(run);
      } catch (IOException e) {
        failure = e;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private record Head(RecordEntry entry, RunReader reader) {}
}
