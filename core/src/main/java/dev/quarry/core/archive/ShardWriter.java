package dev.quarry.core.archive;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;

/** Writes records into one shard. Closing finishes the archive; it does not close the underlying stream's owner. */
public interface ShardWriter extends Closeable {
  /** Appends one record, its members adjacent and in the record's order. */
  void write(Record record) throws IOException;

  /**
   * Appends one record {@code key} whose members' data waits in files, in the bytes {@link #write(Record)} makes of
   * the same members, holding a bounded part of them: a create worker converts a record too large to hold this way.
   */
  void write(String key, List<SpooledMember> members) throws IOException;

  /** Records written so far. */
  long records();

  /** Bytes of the archive written so far. */
  long bytesWritten();
}
