package dev.quarry.core.archive;

import dev.quarry.core.archive.compress.Compression;
import dev.quarry.core.archive.msgpack.MsgpackWriter;
import dev.quarry.core.archive.tar.TarWriter;
import dev.quarry.core.archive.zip.ZipWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;

/** The entry point for writing shards: one writer per format. Closing a writer finishes the archive and the stream. */
public final class ShardWriters {
  private ShardWriters() {}

  public static ShardWriter open(ShardFormat format, OutputStream out) throws IOException {
    return open(format, out, Path.of(System.getProperty("java.io.tmpdir")));
  }

  /**
   * A writer of {@code format} to {@code out}, which keeps what it must hold until the end (a zip's central
   * directory), past a little, in {@code temporaryFolder}: a process's work folder, which goes with it.
   */
  public static ShardWriter open(ShardFormat format, OutputStream out, Path temporaryFolder) throws IOException {
    return switch (format) {
      case TAR -> new TarWriter(out);
      case TAR_GZ -> new TarWriter(Compression.gzip(out));
      case TAR_LZ4 -> new TarWriter(Compression.lz4(out));
      case ZIP -> new ZipWriter(out, ZipWriter.Method.DEFLATED, temporaryFolder);
      case MSGPACK -> new MsgpackWriter(out);
    };
  }
}
