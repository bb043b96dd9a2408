package dev.quarry.core.sync;

import dev.quarry.core.progress.ProgressLine;
import dev.quarry.core.progress.ProgressPrinter;
import java.util.concurrent.atomic.AtomicLong;

/** Objects and bytes moved so far, printed for people (see {@link ProgressPrinter}) and once at the end. */
public final class TransferProgress {
  private final String what;
  private final long totalObjects;
  private final long totalBytes;
  private final ProgressPrinter printer;
  private final long start = System.nanoTime();
  private final AtomicLong objects = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();

  public TransferProgress(SyncSession session, String what, long totalObjects, long totalBytes) {
    this.what = what;
    this.totalObjects = totalObjects;
    this.totalBytes = totalBytes;
    this.printer = new ProgressPrinter(session.log(), false);
  }

  public void done(long objectBytes) {
    objects.incrementAndGet();
    bytes.addAndGet(objectBytes);
    print(false);
  }

  public Amount moved() {
    return new Amount(objects.get(), bytes.get());
  }

  public synchronized void print(boolean last) {
    if (!last && !printer.due()) {
      return;
    }
    printer.print(new ProgressLine(what, objects.get(), totalObjects, "object", null, bytes.get(), totalBytes,
        (System.nanoTime() - start) / 1e9), last);
  }
}
