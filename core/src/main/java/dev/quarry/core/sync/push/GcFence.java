package dev.quarry.core.sync.push;

import dev.quarry.core.store.LimitedInputStream;
import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.cas.Marker;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Waits until no gc is deleting on the remote. A push calls it after writing its lease: a gc that started before the
 * lease existed may not have seen it, and is waited out; a gc that starts later sees the lease and spares what it
 * lists. Together they close the race between a push finding an old object present and a gc deleting it.
 */
public final class GcFence {
  private static final Duration POLL = Duration.ofSeconds(2);

  private GcFence() {}

  public static void awaitNoRunningGc(SyncSession session) throws IOException {
    ObjectStore store = session.remote().store();
    String prefix = session.remote().layout().gcRunningPrefix();
    boolean logged = false;
    Set<String> ignored = new HashSet<>();
    while (true) {
      List<ObjectInfo> running = store.list(prefix, null, 1000).objects();
      Marker active = null;
      for (ObjectInfo object : running) {
        Marker marker;
        try {
          marker = Marker.parse(store.url(object.key()), session.remote().readSmall(object.key()));
        } catch (NoSuchObjectException finished) {
          continue; // That gc finished between the listing and the read.
        } catch (Marker.InvalidMarkerException | LimitedInputStream.TooLargeException notAMarker) {
          // Quarry did not write it (or not as a gc marker): no gc waits behind it, so it holds no push back.
          if (ignored.add(object.key())) {
            session.log("push: ignoring %s, which is not a gc marker: %s", store.url(object.key()),
                notAMarker.getMessage());
          }
          continue;
        }
        if (Marker.GC.equals(marker.format()) && !marker.isExpired(Instant.now())) {
          active = marker;
          break;
        }
      }
      if (active == null) {
        return;
      }
      if (!logged) {
        session.log("push: waiting for gc %s (started %s) to finish", active.id(), active.startedAt());
        logged = true;
      }
      try {
        Thread.sleep(POLL);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("Interrupted while waiting for gc " + active.id() + " to finish");
      }
    }
  }
}
