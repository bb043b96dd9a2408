package dev.quarry.core.archive;

import java.io.Closeable;
import java.io.IOException;

/** Writes records into one shard. Closing finishes the archive; it does not close the underlying stream's owner. */
public interface ShardWriter extends Closeable {
  /** Appends one record, its members adjacent and in the record's order. */
  void write(Record record) throws IOException;

  /** Records written so far. */
  long records();

  /** Bytes of the archive written so far. */
  long bytesWritten();
}
