package dev.quarry.core.cache.copy;

/**
 * A cap on bytes per second for one copy, so that warming a cache does not starve the shared source or the node's
 * readers. Sleeps whenever the bytes passed so far run ahead of the rate since the copy started.
 */
public final class Bandwidth {
  private final long bytesPerSecond;
  private final long startNanos = System.nanoTime();
  private long passed;

  private Bandwidth(long bytesPerSecond) {
    this.bytesPerSecond = bytesPerSecond;
  }

  /** At most {@code bytesPerSecond}; zero or less means no cap. */
  public static Bandwidth perSecond(long bytesPerSecond) {
    return new Bandwidth(Math.max(0, bytesPerSecond));
  }

  /** Accounts for {@code bytes} just moved and waits until the rate allows more. */
  public void pass(long bytes) throws InterruptedException {
    if (bytesPerSecond == 0) {
      return;
    }
    passed += bytes;
    long dueNanos = (long) (passed * 1e9 / bytesPerSecond);
    long aheadNanos = dueNanos - (System.nanoTime() - startNanos);
    if (aheadNanos > 0) {
      Thread.sleep(aheadNanos / 1_000_000, (int) (aheadNanos % 1_000_000));
    }
  }
}
