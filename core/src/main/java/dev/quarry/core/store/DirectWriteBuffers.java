package dev.quarry.core.store;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * A fixed number of direct buffers of a fixed size, aligned to {@link #ALIGNMENT}, through which a
 * {@link FileStore} upload writes a large file past the page cache (O_DIRECT): the disk then takes the bytes from
 * the buffer instead of the kernel copying them into cached pages first, a copy that took a quarter of a local
 * sort's CPU. Allocated once and reused, so that the owner counts {@link #totalBytes} once in its memory budget
 * (direct memory returns only when a collection finds its buffer unreachable).
 */
public final class DirectWriteBuffers {
  /** The buffers' address and size alignment: the block size of common local filesystems, and a multiple of theirs. */
  public static final int ALIGNMENT = 4096;

  private final BlockingQueue<ByteBuffer> free;
  private final long totalBytes;

  /** {@code count} buffers of {@code bytes} each, a positive multiple of {@link #ALIGNMENT}. */
  public DirectWriteBuffers(int count, int bytes) {
    if (count < 1 || bytes < ALIGNMENT || bytes % ALIGNMENT != 0) {
      throw new IllegalArgumentException("Invalid direct write buffers: " + count + " of " + bytes
          + " bytes (must be at least one, of a positive multiple of " + ALIGNMENT + " bytes)");
    }
    free = new ArrayBlockingQueue<>(count);
    for (int i = 0; i < count; i++) {
      free.add(ByteBuffer.allocateDirect(bytes + ALIGNMENT).alignedSlice(ALIGNMENT).limit(bytes).slice());
    }
    totalBytes = (long) count * bytes;
  }

  /** The direct memory the buffers take (and an alignment's worth each), all of it from construction on. */
  public long totalBytes() {
    return totalBytes;
  }

  /** A free buffer, cleared, waiting for one if all are taken; give it back with {@link #release}. */
  public ByteBuffer take() throws InterruptedException {
    return free.take().clear();
  }

  public void release(ByteBuffer buffer) {
    free.add(buffer);
  }
}
