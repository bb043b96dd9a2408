package dev.quarry.core.concurrent;

import java.util.concurrent.atomic.AtomicLong;

/** Lets something happen at most once per interval, from any thread: progress lines for people. */
public final class Throttle {
  private final long intervalNanos;
  private final AtomicLong last;

  /** {@code dueAtOnce}: the first call answers true, else only once an interval has passed from now. */
  public Throttle(long intervalNanos, boolean dueAtOnce) {
    this.intervalNanos = intervalNanos;
    this.last = new AtomicLong(System.nanoTime() - (dueAtOnce ? intervalNanos : 0));
  }

  /** Whether the interval has passed since the last time this answered true (or since creation); claims it if so. */
  public boolean due() {
    long now = System.nanoTime();
    long previous = last.get();
    return now - previous >= intervalNanos && last.compareAndSet(previous, now);
  }
}
