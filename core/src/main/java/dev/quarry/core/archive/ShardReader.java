package dev.quarry.core.archive;

import java.io.Closeable;
import java.io.IOException;

/**
 * Reads the regular file members of one shard, in stream order. Directories are passed over; anything else that is
 * not a regular file, an unsafe name or a malformed archive ends in an {@link ArchiveException} naming the shard and
 * the member.
 */
public interface ShardReader extends Closeable {
  /** The next member, or null at the end of the shard. */
  ArchiveMember next() throws IOException;

  /** Directory entries passed over so far. */
  long directoriesSkipped();
}
