package dev.quarry.core.progress;

import dev.quarry.core.concurrent.Throttle;
import java.io.PrintStream;

/**
 * Prints a step's progress to a log: every two seconds as a line, or, when the log is a {@link StatusDisplay}, four
 * times a second in place. The last one always. Callers build the line only when {@link #due()} says so.
 */
public final class ProgressPrinter {
  private static final long LINE_INTERVAL_NANOS = 2_000_000_000L;
  private static final long STATUS_INTERVAL_NANOS = 250_000_000L;

  private final PrintStream log;
  private final Throttle throttle;

  /** {@code atOnce}: the first progress is printed when it comes, else after the first interval. */
  public ProgressPrinter(PrintStream log, boolean atOnce) {
    this.log = log;
    this.throttle = new Throttle(log instanceof StatusDisplay ? STATUS_INTERVAL_NANOS : LINE_INTERVAL_NANOS, atOnce);
  }

  /** Whether an interval has passed since the last print (and claims it). */
  public boolean due() {
    return throttle.due();
  }

  public void print(ProgressLine line, boolean last) {
    if (log instanceof StatusDisplay display) {
      if (last) {
        display.finish(line);
      } else {
        display.status(line);
      }
    } else {
      log.println(line.plain());
    }
    log.flush();
  }
}
