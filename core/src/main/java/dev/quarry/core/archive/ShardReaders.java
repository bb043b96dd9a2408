package dev.quarry.core.archive;

import dev.quarry.core.archive.compress.Compression;
import dev.quarry.core.archive.msgpack.MsgpackReader;
import dev.quarry.core.archive.tar.TarReader;
import dev.quarry.core.archive.zip.ZipReader;
import java.io.IOException;
import java.io.InputStream;

/** The entry point for reading shards: one reader per format, all streaming. */
public final class ShardReaders {
  private ShardReaders() {}

  /** A reader of {@code format} over {@code in}; {@code shard} names the shard in every error. */
  public static ShardReader open(ShardFormat format, InputStream in, String shard, ArchiveLimits limits)
      throws IOException {
    return switch (format) {
      case TAR -> new TarReader(in, shard, limits);
      case TAR_GZ -> new TarReader(Compression.gunzip(in, shard, limits), shard, limits);
      case TAR_LZ4 -> new TarReader(Compression.unlz4(in, shard, limits), shard, limits);
      case ZIP -> new ZipReader(in, shard, limits);
      case MSGPACK -> new MsgpackReader(in, shard, limits);
    };
  }
}
