package dev.quarry.core.sort;

import dev.quarry.core.progress.ProgressLine;
import dev.quarry.core.progress.ProgressPrinter;
import dev.quarry.core.units.Counted;
import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLong;

/** Prints a phase's progress for people (see {@link ProgressPrinter}), and once at the end. Thread-safe. */
public final class Progress {
  private final String phase;
  private final long totalShards;
  private final ProgressPrinter printer;
  private final long start = System.nanoTime();
  private final AtomicLong shards = new AtomicLong();
  private final AtomicLong records = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();

  public Progress(String phase, long totalShards, PrintStream out) {
    this.phase = phase;
    this.totalShards = totalShards;
    this.printer = new ProgressPrinter(out, true);
  }

  public void shardDone(long shardRecords, long shardBytes) {
    shards.incrementAndGet();
    records.addAndGet(shardRecords);
    bytes.addAndGet(shardBytes);
    print(false);
  }

  public synchronized void print(boolean last) {
    if (!last && !printer.due()) {
      return;
    }
    printer.print(new ProgressLine(phase, shards.get(), totalShards, "shard", Counted.of(records.get(), "record"),
        bytes.get(), -1, (System.nanoTime() - start) / 1e9), last);
  }
}
