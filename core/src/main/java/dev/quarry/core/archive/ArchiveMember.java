package dev.quarry.core.archive;

import java.io.IOException;
import java.io.InputStream;

/**
 * A regular file member met by a {@link ShardReader}. Its data can be read once, until the reader moves on; data not
 * read is skipped.
 */
public interface ArchiveMember {
  /** The member's name in the archive, relative, with '/' separators. */
  String name();

  /** The data size in bytes. */
  long size();

  /** Where the member's raw bytes lie in the uncompressed stream; null for formats other than tar. */
  RawRange raw();

  /** The member's data. */
  InputStream data() throws IOException;

  /** The member's data, read whole. */
  byte[] readData() throws IOException;
}
