package dev.quarry.core.sort.extract;

import dev.quarry.core.fs.KeptOpen;
import dev.quarry.core.memory.JdkIoBuffers;
import dev.quarry.core.store.FileRangeStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Packs of a local run: held in memory outside the heap ({@link ChunkedBytes}) while they fit the budget, written to
 * a local folder once they do not. The budget is checked chunk by chunk as a pack is written, so a pack that does not
 * fit moves to its file mid-way, and its chunks go to the next packs ({@link ChunkPool}): the direct memory allocated
 * never exceeds the budget. Each input byte is read once, from the input,
 * into here.
 */
public final class LocalPacks implements PackStore, AutoCloseable {
  private final Path spillDir;
  private final long budgetBytes;
  private final AtomicLong heldBytes = new AtomicLong();
  private final AtomicLong spilledBytes = new AtomicLong();
  private final Map<Integer, ChunkedBytes> inMemory = new ConcurrentHashMap<>();
  private final ChunkPool chunks = new ChunkPool();
  /** Spill files kept open for reading ({@link #spilled}). */
  private final KeptOpen<Integer, Spilled> openSpills = new KeptOpen<>();

  /** @param budgetBytes the most pack bytes held in memory (MemoryBudget.recordBytes) */
  public LocalPacks(Path spillDir, long budgetBytes) {
    this.spillDir = spillDir;
    this.budgetBytes = budgetBytes;
  }

  @Override
  public PackOutput create(int shard) {
    SpillingOutput out = new SpillingOutput(shard);
    return new PackOutput() {
      @Override
      public OutputStream stream() {
        return out;
      }

      @Override
      public void commit() throws IOException {
        out.commit();
      }

      @Override
      public void close() throws IOException {
        out.discardUnlessCommitted();
      }
    };
  }

  @Override
  public InputStream read(int shard, long offset, long length) throws IOException {
    ChunkedBytes bytes = inMemory.get(shard);
    if (bytes != null) {
      if (offset < 0 || length < 0 || offset + length > bytes.size()) {
        throw new IOException("Cannot read pack of shard " + shard + ": range " + offset + "+" + length
            + " is past its " + bytes.size() + " bytes");
      }
      return bytes.stream(offset, length);
    }
    // Streamed, not read whole: a merged read may span most of a pack, and its bytes on the heap (and in the JDK's
    // temporary direct buffer for them) were outside every budget.
    Spilled spilled = spilled(shard);
    if (offset < 0 || length < 0 || offset + length > spilled.size()) {
      if (!spilled.shared()) {
        spilled.close();
      }
      throw new IOException("Cannot read pack of shard " + shard + ": range " + offset + "+" + length
          + " is past its end");
    }
    return spilled.shared() ? FileRangeStream.sharing(spilled.channel(), spilled.name(), offset, offset + length)
        : new FileRangeStream(spilled.channel(), spilled.name(), offset, offset + length);
  }

  /**
   * A spilled pack's file, open, with its size and name; {@code shared}: kept open for every read until this store
   * closes.
   */
  private record Spilled(FileChannel channel, long size, String name, boolean shared) implements Closeable {
    @Override
    public void close() throws IOException {
      channel.close();
    }
  }

  /**
   * Shard {@code shard}'s spill file, opened at its first read and kept open for the others ({@link KeptOpen}); once
   * no more can be kept, opened for this read alone.
   */
  private Spilled spilled(int shard) throws IOException {
    Spilled known = openSpills.get(shard);
    if (known != null) {
      return known;
    }
    Path file = spillFile(shard);
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    long size;
    try {
      size = channel.size();
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    Spilled kept = openSpills.keep(shard, new Spilled(channel, size, file.toString(), true));
    return kept != null ? kept : new Spilled(channel, size, file.toString(), false);
  }

  /** Pack bytes held in memory now, in whole chunks. */
  public long heldBytes() {
    return heldBytes.get();
  }

  /** Bytes of the committed packs that did not fit the budget and went to disk. */
  public long spilledBytes() {
    return spilledBytes.get();
  }

  private Path spillFile(int shard) {
    return spillDir.resolve(String.format("pack-%08d.tar", shard));
  }

  @Override
  public void close() throws IOException {
    try {
      openSpills.close();
    } finally {
      inMemory.values().forEach(ChunkedBytes::clear);
      inMemory.clear();
      heldBytes.set(0);
      chunks.clear();
    }
  }

  /** A pack's bytes: in memory while the budget allows, then in its spill file. */
  private final class SpillingOutput extends OutputStream {
    private final int shard;
    private ChunkedBytes memory = new ChunkedBytes(chunks);
    private OutputStream file;
    private long size;
    private boolean committed;

    SpillingOutput(int shard) {
      this.shard = shard;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] buffer, int offset, int length) throws IOException {
      size += length;
      if (memory != null) {
        long growth = memory.growthFor(length);
        if (growth == 0 || reserve(growth)) {
          long held = memory.allocated();
          if (memory.grow(length)) {
            memory.write(buffer, offset, length);
            return;
          }
          // The JVM's direct memory ran out before the budget did: the chunks not taken were never held.
          heldBytes.addAndGet(-(growth - (memory.allocated() - held)));
        }
        spill();
      }
      // In slices: a write of a heap array past the stream's buffer goes through a temporary direct buffer as large,
      // which on JDK 21 counts against the direct memory that has just run out; a slice's is the one the JDK keeps.
      for (int at = 0; at < length; ) {
        int slice = JdkIoBuffers.slice(length - at);
        file.write(buffer, offset + at, slice);
        at += slice;
      }
    }

    private boolean reserve(long bytes) {
      if (heldBytes.addAndGet(bytes) <= budgetBytes) {
        return true;
      }
      heldBytes.addAndGet(-bytes);
      return false;
    }

    /** Moves what is held to the spill file, which takes every later byte. */
    private void spill() throws IOException {
      Files.createDirectories(spillDir);
      file = new BufferedOutputStream(Files.newOutputStream(spillFile(shard)), JdkIoBuffers.CACHED_BYTES);
      memory.writeTo(file);
      release();
    }

    private void release() {
      heldBytes.addAndGet(-memory.allocated());
      memory.clear();
      memory = null;
    }

    void commit() throws IOException {
      if (memory != null) {
        inMemory.put(shard, memory);
      } else {
        file.close();
        spilledBytes.addAndGet(size);
      }
      committed = true;
    }

    void discardUnlessCommitted() throws IOException {
      if (committed) {
        return;
      }
      if (memory != null) {
        release();
      } else {
        file.close();
        Files.deleteIfExists(spillFile(shard));
      }
    }
  }
}
