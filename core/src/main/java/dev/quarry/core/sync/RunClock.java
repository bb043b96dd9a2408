package dev.quarry.core.sync;

import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.RequestCounts;
import dev.quarry.core.store.RequestTotals;
import java.time.Instant;

/** When a command started and the store's request counts then, to report its own time and requests. */
public final class RunClock {
  private final ObjectStore store;
  private final Instant start = Instant.now();
  private final long startNanos = System.nanoTime();
  private final RequestCounts before;

  public RunClock(ObjectStore store) {
    this.store = store;
    this.before = store.requests().snapshot();
  }

  public String startTime() {
    return start.toString();
  }

  public String now() {
    return Instant.now().toString();
  }

  public double elapsedSeconds() {
    return Math.round((System.nanoTime() - startNanos) / 1e6) / 1e3;
  }

  public RequestTotals requests() {
    return RequestTotals.of(store.requests().snapshot().minus(before));
  }
}
