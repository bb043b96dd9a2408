package dev.quarry.core.sort.extract;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Bytes held outside the Java heap, as a list of {@value #CHUNK}-byte direct buffers taken from a {@link ChunkPool}.
 * A local run holds the whole dataset here: on the heap, every byte of it would be copied by the collector from
 * young to old regions and scanned again by each marking cycle, which cost more CPU than reading it from the store.
 * Appending never copies what is held, and any range can be streamed back without copying it first.
 */
final class ChunkedBytes {
  static final int CHUNK = 1 << 20;

  private final ChunkPool pool;
  private final List<ByteBuffer> chunks = new ArrayList<>();
  private long size;

  ChunkedBytes(ChunkPool pool) {
    this.pool = pool;
  }

  /** The bytes of new chunks that appending {@code length} bytes would allocate. */
  long growthFor(int length) {
    long capacity = (long) chunks.size() * CHUNK;
    long missing = size + length - capacity;
    return missing <= 0 ? 0 : (missing + CHUNK - 1) / CHUNK * CHUNK;
  }

  /** Bytes allocated, in whole chunks. */
  long allocated() {
    return (long) chunks.size() * CHUNK;
  }

  /**
   * Takes the chunks appending {@code length} bytes needs ({@link #growthFor}); false when the pool could not allocate
   * them all (those it could are held, and counted in {@link #allocated}).
   */
  boolean grow(int length) {
    for (long missing = growthFor(length); missing > 0; missing -= CHUNK) {
      ByteBuffer chunk = pool.take();
      if (chunk == null) {
        return false;
      }
      chunks.add(chunk);
    }
    return true;
  }

  /** Appends {@code length} bytes, taking the chunks they need: {@link #grow} first to know whether it can. */
  void write(byte[] buffer, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, buffer.length);
    if (!grow(length)) {
      throw new IllegalStateException("No direct memory left for " + length + " bytes");
    }
    int written = 0;
    while (written < length) {
      int inChunk = (int) (size % CHUNK);
      int n = Math.min(length - written, CHUNK - inChunk);
      chunks.get((int) (size / CHUNK)).put(inChunk, buffer, offset + written, n);
      written += n;
      size += n;
    }
  }

  long size() {
    return size;
  }

  /** Bytes [offset, offset + length), read straight from the chunks. */
  InputStream stream(long offset, long length) {
    Objects.checkFromIndexSize(offset, length, size);
    return new InputStream() {
      private long position = offset;
      private final long end = offset + length;

      @Override
      public int read() {
        if (position >= end) {
          return -1;
        }
        byte b = chunks.get((int) (position / CHUNK)).get((int) (position % CHUNK));
        position++;
        return b & 0xff;
      }

      @Override
      public int read(byte[] buffer, int at, int wanted) {
        Objects.checkFromIndexSize(at, wanted, buffer.length);
        if (wanted == 0) {
          return 0;
        }
        if (position >= end) {
          return -1;
        }
        int inChunk = (int) (position % CHUNK);
        int n = (int) Math.min(Math.min(wanted, end - position), CHUNK - inChunk);
        chunks.get((int) (position / CHUNK)).get(inChunk, buffer, at, n);
        position += n;
        return n;
      }

      @Override
      public int available() {
        return (int) Math.min(Integer.MAX_VALUE, end - position);
      }
    };
  }

  /** Writes every byte held to {@code out}. */
  void writeTo(OutputStream out) throws IOException {
    stream(0, size).transferTo(out);
  }

  /** Gives the chunks back to the pool, for other bytes. */
  void clear() {
    pool.giveBack(chunks);
    chunks.clear();
    size = 0;
  }
}
