package dev.quarry.core.sort.create;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.store.RangeBeyondEndException;
import dev.quarry.core.store.RangedContent;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;

/**
 * A shard's raw record bytes in plan order, read range by range from where they are. Used when every record is
 * already in this process or in local files (a local run's packs and plain tars), where reading in order costs
 * nothing and gathering into files first would only add disk traffic. Read from any offset ({@link RangedContent}),
 * so that an upload in parts sends each from where its bytes are, holding none.
 */
final class OrderedRecordBytes extends InputStream {
  private final RecordSource source;
  private final ShardEntries.Cursor entries;
  private RecordEntry entry;
  private Iterator<RawRange> ranges;
  private InputStream current;
  /** Bytes still to skip before the first one given, then bytes still to give. */
  private long skip;
  private long left;

  private OrderedRecordBytes(RecordSource source, ShardEntries entries, long offset, long length)
      throws IOException {
    this.source = source;
    this.entries = entries.cursor();
    this.skip = offset;
    this.left = length;
  }

  /** The raw bytes of {@code entries}, one after the other. */
  static RangedContent of(RecordSource source, ShardEntries entries) {
    return new RangedContent() {
      @Override
      public long length() {
        return entries.bytes();
      }

      @Override
      public InputStream open(long offset, long wanted) throws IOException {
        return new OrderedRecordBytes(source, entries, offset, wanted);
      }
    };
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    while (left > 0) {
      if (current != null) {
        int read;
        try {
          read = current.read(buffer, offset, (int) Math.min(length, left));
        } catch (EOFException e) {
          throw RecordSource.inputChanged(entry.shard(), e); // a file cut short after it was opened
        }
        if (read >= 0) {
          left -= read;
          return read;
        }
        current.close();
        current = null;
      }
      if (!advance()) {
        return -1;
      }
    }
    return -1;
  }

  /** Opens the next range, from where the bytes to give begin; false after the last. */
  private boolean advance() throws IOException {
    while (true) {
      while (ranges == null || !ranges.hasNext()) {
        entry = entries.next();
        if (entry == null) {
          return false;
        }
        ranges = entry.ranges().iterator();
      }
      RawRange range = ranges.next();
      if (skip >= range.length()) {
        skip -= range.length(); // wholly before the bytes to give
        continue;
      }
      try {
        current = source.open(entry.shard(), entry.packed(), range.offset() + skip, range.length() - skip);
      } catch (RangeBeyondEndException e) {
        throw RecordSource.inputChanged(entry.shard(), e);
      }
      skip = 0;
      return true;
    }
  }

  @Override
  public void close() throws IOException {
    try (ShardEntries.Cursor cursor = entries) {
      if (current != null) {
        current.close();
      }
    }
  }
}
