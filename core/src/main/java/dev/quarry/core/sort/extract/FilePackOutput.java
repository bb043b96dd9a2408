package dev.quarry.core.sort.extract;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A pack written to a local file (an input shard spooled while it is read); a shard whose read failed leaves nothing
 * on local disk: the file is deleted at close unless the pack was committed.
 */
final class FilePackOutput implements PackStore.PackOutput {
  private static final int BUFFER_BYTES = 1 << 16;

  private final Path file;
  private final OutputStream out;
  private boolean committed;

  FilePackOutput(Path file) throws IOException {
    this.file = file;
    this.out = new BufferedOutputStream(Files.newOutputStream(file), BUFFER_BYTES);
  }

  Path file() {
    return file;
  }

  @Override
  public OutputStream stream() {
    return out;
  }

  @Override
  public void commit() throws IOException {
    out.close();
    committed = true;
  }

  @Override
  public void close() throws IOException {
    out.close();
    if (!committed) {
      Files.deleteIfExists(file);
    }
  }
}
