package dev.quarry.operator.status;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The shortest time between two status writes of one resource, for statuses that summarize what many writers report
 * (a NodeCache's, from an agent report per node): a change within the interval waits for its end, and the status
 * written then is the latest, so the write rate does not grow with the number of writers. Keyed by UID; a restarted
 * operator writes at once.
 */
public final class WriteInterval {
  private final Duration interval;
  private final Clock clock;
  private final Map<String, Instant> lastWrite = new ConcurrentHashMap<>();

  public WriteInterval(Duration interval, Clock clock) {
    this.interval = interval;
    this.clock = clock;
  }

  /** How long a write of {@code resource}'s status must still wait; zero when it may be written now. */
  public Duration remaining(HasMetadata resource) {
    Instant last = lastWrite.get(resource.getMetadata().getUid());
    if (last == null) {
      return Duration.ZERO;
    }
    Duration remaining = Duration.between(Instant.now(clock), last.plus(interval));
    return remaining.isNegative() ? Duration.ZERO : remaining;
  }

  /** Records that {@code resource}'s status was written now. */
  public void wrote(HasMetadata resource) {
    lastWrite.put(resource.getMetadata().getUid(), Instant.now(clock));
  }

  /** Forgets {@code resource}, once it is deleted. */
  public void forget(HasMetadata resource) {
    lastWrite.remove(resource.getMetadata().getUid());
  }
}
