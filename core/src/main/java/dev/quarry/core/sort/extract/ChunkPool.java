package dev.quarry.core.sort.extract;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Collection;

/**
 * The direct buffers of a local run's packs, kept for reuse: a chunk a pack gives back (it spilled, or was discarded)
 * goes to the next pack instead of waiting for the collector to free it. Direct memory a buffer holds is returned
 * only once a collection finds the buffer unreachable, and a run that makes little garbage on the heap collects
 * rarely: without reuse, every spill added the budget's worth of chunks again, up to the JVM's direct memory limit.
 * So the chunks ever allocated are at most the most held at once, which the packs' budget bounds.
 */
final class ChunkPool {
  private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
  /** Whether the JVM's direct memory had no room for a chunk: from then on only chunks given back are handed out. */
  private boolean full;

  /**
   * A chunk of {@link ChunkedBytes#CHUNK} bytes: a free one, else a new one; null when the JVM's direct memory limit
   * has no room for one, which the JDK's own I/O buffers share with the packs' budget (the caller spills).
   */
  synchronized ByteBuffer take() {
    ByteBuffer chunk = free.pollFirst();
    if (chunk != null || full) {
      return chunk;
    }
    try {
      return ByteBuffer.allocateDirect(ChunkedBytes.CHUNK);
    } catch (OutOfMemoryError e) {
      // "Cannot reserve direct buffer memory", thrown once the JDK has collected and waited about half a second for
      // buffers to free: not tried again, or every later pack waited as long, one at a time.
      full = true;
      return null;
    }
  }

  synchronized void giveBack(Collection<ByteBuffer> chunks) {
    free.addAll(chunks);
  }

  /** Drops the free chunks; their memory is returned once the collector sees them unreachable. */
  synchronized void clear() {
    free.clear();
  }
}
