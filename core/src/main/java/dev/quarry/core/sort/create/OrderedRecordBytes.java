package dev.quarry.core.sort.create;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.store.RangeBeyondEndException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;
import java.util.List;

/**
 * A shard's raw record bytes in plan order, read range by range from where they are. Used when every record is
 * already in this process or in local files (a local run's packs and plain tars), where reading in order costs
 * nothing and gathering into files first would only add disk traffic.
 */
final class OrderedRecordBytes extends InputStream {
  private final RecordSource source;
  private final Iterator<RecordEntry> entries;
  private RecordEntry entry;
  private Iterator<RawRange> ranges;
  private InputStream current;

  OrderedRecordBytes(RecordSource source, List<RecordEntry> entries) {
    this.source = source;
    this.entries = entries.iterator();
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    while (true) {
      if (current != null) {
        int read = current.read(buffer, offset, length);
        if (read >= 0) {
          return read;
        }
        current.close();
        current = null;
      }
      if (!advance()) {
        return -1;
      }
    }
  }

  /** Opens the next range; false after the last. */
  private boolean advance() throws IOException {
    while (ranges == null || !ranges.hasNext()) {
      if (!entries.hasNext()) {
        return false;
      }
      entry = entries.next();
      ranges = entry.ranges().iterator();
    }
    RawRange range = ranges.next();
    try {
      current = source.open(entry.shard(), entry.packed(), range.offset(), range.length());
    } catch (RangeBeyondEndException e) {
      throw new IOException("Cannot read record bytes of input shard " + entry.shard() + ": " + e.getMessage()
          + " (the input changed since extract; rerun the job)", e);
    }
    return true;
  }

  @Override
  public void close() throws IOException {
    if (current != null) {
      current.close();
    }
  }
}
