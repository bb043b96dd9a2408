package dev.quarry.core.sync.remote;

import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.cas.Marker;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;

/**
 * Keeps a {@link Marker} alive on the remote: written at start, rewritten with a later expiry every third of its
 * lifetime by a virtual thread, deleted at close. The owner calls {@link #requireValid} before each step that relies
 * on it, so it never acts on a claim others may already consider expired.
 */
public final class RenewedMarker implements AutoCloseable {
  private final ObjectStore store;
  private final String key;
  private final Duration ttl;
  private final Marker marker;
  private final Thread renewer;
  private volatile Instant validUntil;
  private volatile IOException lastFailure;

  private RenewedMarker(ObjectStore store, String key, Duration ttl, Marker marker) {
    this.store = store;
    this.key = key;
    this.ttl = ttl;
    this.marker = marker;
    this.renewer = Thread.ofVirtual().name("renew " + key).unstarted(this::renewUntilClosed);
  }

  /** Writes {@code marker} at {@code key}, valid for {@code ttl}, and starts renewing it. */
  public static RenewedMarker start(ObjectStore store, String key, Duration ttl, Marker marker) throws IOException {
    RenewedMarker renewed = new RenewedMarker(store, key, ttl, marker);
    renewed.write();
    renewed.renewer.start();
    return renewed;
  }

  public Marker marker() {
    return marker;
  }

  public String key() {
    return key;
  }

  /** Throws unless the marker is valid, with a margin of a sixth of its lifetime for clocks and slow requests. */
  public void requireValid(String action) throws IOException {
    if (Instant.now().isAfter(validUntil.minus(ttl.dividedBy(6)))) {
      throw new IOException("Cannot " + action + ": " + store.url(key) + " could not be renewed in time"
          + (lastFailure != null ? " (" + lastFailure.getMessage() + ")" : "") + "; run again");
    }
  }

  private void write() throws IOException {
    Instant expiry = Instant.now().plus(ttl);
    store.put(key, marker.expiringAt(expiry).toJson());
    validUntil = expiry;
  }

  private void renewUntilClosed() {
    while (!Thread.currentThread().isInterrupted()) {
      try {
        Thread.sleep(ttl.dividedBy(3));
        write();
        lastFailure = null;
      } catch (InterruptedException e) {
        return;
      } catch (IOException e) {
        lastFailure = e;
      }
    }
  }

  /** Stops renewing and deletes the marker. */
  @Override
  public void close() throws IOException {
    renewer.interrupt();
    try {
      renewer.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    store.delete(key);
  }
}
