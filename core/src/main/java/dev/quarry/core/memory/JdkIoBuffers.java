package dev.quarry.core.memory;

/**
 * The direct buffers the JDK takes for its own I/O, bounded. A read or write of a heap array through a file or socket
 * channel goes through a temporary direct buffer as large as the array's range, which the JDK then keeps for the
 * thread's next I/O; a virtual thread's is its carrier's, and blocking file I/O adds carriers. Those buffers are
 * outside every budget: native memory in the resident size on JDK 25, and counted against the direct memory limit a
 * local sort's record bytes share on older JDKs. A carrier that had read a 4 MiB lz4 block kept 4 MiB. So the JDK
 * keeps buffers of at most {@value #CACHED_BYTES} bytes (larger ones are freed after their I/O), and Quarry's own file
 * reads and spill writes go in slices of that size ({@link #slice}), which reuse the kept buffer instead of allocating
 * one each time.
 */
public final class JdkIoBuffers {
  /** The largest temporary buffer the JDK keeps for a thread's next I/O, and the largest slice of our file I/O. */
  public static final int CACHED_BYTES = 256 << 10;
  static final String PROPERTY = "jdk.nio.maxCachedBufferSize";

  private JdkIoBuffers() {}

  /**
   * Sets the JDK's limit, unless the command line set one: call first thing in main, before any channel I/O (the
   * JDK reads it once).
   */
  public static void bound() {
    if (System.getProperty(PROPERTY) == null) {
      System.setProperty(PROPERTY, Integer.toString(CACHED_BYTES));
    }
  }

  /** How much of {@code wanted} bytes one channel I/O of a heap array should move: at most {@link #CACHED_BYTES}. */
  public static int slice(long wanted) {
    return (int) Math.min(wanted, CACHED_BYTES);
  }
}
