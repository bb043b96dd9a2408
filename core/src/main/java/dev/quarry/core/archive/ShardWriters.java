package dev.quarry.core.archive;

import dev.quarry.core.archive.tar.TarShardWriter;
import java.io.OutputStream;

/** The entry point for writing shards: one writer per format. */
public final class ShardWriters {
  private ShardWriters() {}

  /** A writer of {@code format} onto {@code out}; closing the writer finishes the archive and closes {@code out}. */
  public static ShardWriter open(ShardFormat format, OutputStream out) {
    return switch (format) {
      case TAR -> new TarShardWriter(out);
    };
  }
}
