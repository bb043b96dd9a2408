package dev.quarry.core.sort;

import dev.quarry.core.concurrent.Throttle;
import dev.quarry.core.units.ByteSize;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/** Prints a phase's progress for people: at most every two seconds, and once at the end. Thread-safe. */
public final class Progress {
  private static final long INTERVAL_NANOS = 2_000_000_000L;

  private final String phase;
  private final long totalShards;
  private final PrintStream out;
  private final long start = System.nanoTime();
  private final AtomicLong shards = new AtomicLong();
  private final AtomicLong records = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final Throttle throttle = new Throttle(INTERVAL_NANOS, true);

  public Progress(String phase, long totalShards, PrintStream out) {
    this.phase = phase;
    this.totalShards = totalShards;
    this.out = out;
  }

  public void shardDone(long shardRecords, long shardBytes) {
    shards.incrementAndGet();
    records.addAndGet(shardRecords);
    bytes.addAndGet(shardBytes);
    print(false);
  }

  public synchronized void print(boolean last) {
    long now = System.nanoTime();
    if (!last && !throttle.due()) {
      return;
    }
    double seconds = Math.max((now - start) / 1e9, 1e-9);
    out.printf(Locale.ROOT, "%s: %d/%d shards, %d records, %s, %s/s, %.1f s%n", phase, shards.get(), totalShards,
        records.get(), ByteSize.format(bytes.get()), ByteSize.format((long) (bytes.get() / seconds)), seconds);
    out.flush();
  }
}
