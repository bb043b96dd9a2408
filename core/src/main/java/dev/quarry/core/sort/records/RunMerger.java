package dev.quarry.core.sort.records;

import java.io.IOException;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/** Merges sorted runs into one sorted stream; memory holds one entry per run, whatever the record count. */
public final class RunMerger implements AutoCloseable {
  private final PriorityQueue<Head> heads;
  private final List<RunReader> readers;

  public RunMerger(List<RunReader> readers, Comparator<RecordEntry> order) throws IOException {
    this.readers = readers;
    this.heads = new PriorityQueue<>(Math.max(1, readers.size()), (a, b) -> order.compare(a.entry, b.entry));
    for (RunReader reader : readers) {
      RecordEntry first = reader.next();
      if (first != null) {
        heads.add(new Head(first, reader));
      }
    }
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
    if (failure != null) {
      throw failure;
    }
  }

  private record Head(RecordEntry entry, RunReader reader) {}
}
