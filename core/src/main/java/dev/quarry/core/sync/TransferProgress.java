package dev.quarry.core.sync;

import dev.quarry.core.concurrent.Throttle;
import dev.quarry.core.units.ByteSize;
import java.util.concurrent.atomic.AtomicLong;

/** Objects and bytes moved so far, printed for people at most every two seconds and once at the end. */
public final class TransferProgress {
  private static final long INTERVAL_NANOS = 2_000_000_000L;

  private final SyncSession session;
  private final String what;
  private final long totalObjects;
  private final long totalBytes;
  private final long start = System.nanoTime();
  private final AtomicLong objects = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final Throttle throttle = new Throttle(INTERVAL_NANOS, false);

  public TransferProgress(SyncSession session, String what, long totalObjects, long totalBytes) {
    this.session = session;
    this.what = what;
    this.totalObjects = totalObjects;
    this.totalBytes = totalBytes;
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
    long now = System.nanoTime();
    if (!last && !throttle.due()) {
      return;
    }
    double seconds = Math.max((now - start) / 1e9, 1e-9);
    session.log("%s: %d/%d objects, %s/%s, %s/s, %.1f s", what, objects.get(), totalObjects,
        ByteSize.format(bytes.get()), ByteSize.format(totalBytes), ByteSize.format((long) (bytes.get() / seconds)),
        seconds);
  }
}
