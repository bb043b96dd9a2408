package dev.quarry.core.sort.extract;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Packs of a local run: held in memory while they fit the budget, written to a local folder once they do not. Each
 * input byte is read once, from the input, into here.
 */
public final class LocalPacks implements PackStore, AutoCloseable {
  private final Path spillDir;
  private final long budgetBytes;
  private final AtomicLong heldBytes = new AtomicLong();
  private final Map<Integer, ChunkedBytes> inMemory = new ConcurrentHashMap<>();

  public LocalPacks(Path spillDir, long budgetBytes) {
    this.spillDir = spillDir;
    this.budgetBytes = budgetBytes;
  }

  @Override
  public PackOutput create(int shard) {
    ChunkedBytes bytes = new ChunkedBytes();
    return new PackOutput() {
      private boolean committed;

      @Override
      public OutputStream stream() {
        return bytes;
      }

      @Override
      public void commit() throws IOException {
        if (heldBytes.addAndGet(bytes.size()) <= budgetBytes) {
          inMemory.put(shard, bytes);
        } else {
          heldBytes.addAndGet(-bytes.size());
          Files.createDirectories(spillDir);
          bytes.writeTo(spillFile(shard));
          bytes.clear();
        }
        committed = true;
      }

      @Override
      public void close() {
        if (!committed) {
          bytes.clear();
        }
      }
    };
  }

  @Override
  public InputStream read(int shard, long offset, long length) throws IOException {
    ChunkedBytes bytes = inMemory.get(shard);
    if (bytes != null) {
      if (offset + length > bytes.size()) {
        throw new IOException("Cannot read pack of shard " + shard + ": range " + offset + "+" + length
            + " is past its " + bytes.size() + " bytes");
      }
      return new ByteArrayInputStream(bytes.read(offset, (int) length));
    }
    try (FileChannel channel = FileChannel.open(spillFile(shard), StandardOpenOption.READ)) {
      ByteBuffer buffer = ByteBuffer.allocate((int) length);
      while (buffer.hasRemaining()) {
        if (channel.read(buffer, offset + buffer.position()) < 0) {
          throw new IOException("Cannot read pack of shard " + shard + ": range " + offset + "+" + length
              + " is past its end");
        }
      }
      return new ByteArrayInputStream(buffer.array());
    }
  }

  private Path spillFile(int shard) {
    return spillDir.resolve(String.format("pack-%08d.tar", shard));
  }

  @Override
  public void close() {
    inMemory.clear();
  }
}
