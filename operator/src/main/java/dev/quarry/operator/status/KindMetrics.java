package dev.quarry.operator.status;

import io.fabric8.kubernetes.client.CustomResource;
import io.javaoperatorsdk.operator.processing.event.source.Cache;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The metrics every kind has: {@code quarry_resources{kind,phase}} (counted in the controller's cache at each scrape,
 * so deleted resources drop out), {@code quarry_runs_finished_total{kind,result}} and
 * {@code quarry_run_duration_seconds{kind,result}} (a histogram). Only the leader's caches hold resources, so a
 * standby replica reports zeros.
 *
 * @param <R> the kind
 * @param <S> its status
 * @param <P> its phases
 */
public final class KindMetrics<R extends CustomResource<?, S>, S, P extends Enum<P>> {
  /** Buckets of run and phase durations: from seconds (a small sync) to a day (a large sort). */
  public static final Duration[] DURATION_BUCKETS = {Duration.ofSeconds(5), Duration.ofSeconds(15),
      Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(2), Duration.ofMinutes(5),
      Duration.ofMinutes(10), Duration.ofMinutes(30), Duration.ofHours(1), Duration.ofHours(2), Duration.ofHours(6),
      Duration.ofHours(12), Duration.ofHours(24)};

  private final MeterRegistry registry;
  private final String kind;
  private final Class<P> phases;
  private final Function<S, P> phaseOf;
  private final Function<S, String> startOf;
  private final Function<S, String> endOf;
  private final Set<P> finished;

  /**
   * {@code finished}: the phases a run ends in, each a {@code result}; {@code startOf} and {@code endOf}: when a
   * status says its run started and ended (RFC 3339).
   */
  public KindMetrics(MeterRegistry registry, String kind, Class<P> phases, Function<S, P> phaseOf,
      Function<S, String> startOf, Function<S, String> endOf, Set<P> finished) {
    this.registry = registry;
    this.kind = kind;
    this.phases = phases;
    this.phaseOf = phaseOf;
    this.startOf = startOf;
    this.endOf = endOf;
    this.finished = Set.copyOf(finished);
    for (P result : this.finished) {
      finishedCounter(result);
      durationTimer(result);
    }
  }

  /** Counts the resources of {@code cache} by phase (a resource without a status yet counts as the first phase). */
  public void countIn(Cache<R> cache) {
    for (P phase : phases.getEnumConstants()) {
      Gauge.builder("quarry_resources", cache, c -> c.list().filter(r -> phase(r) == phase).count())
          .description("Resources of each kind by phase").tags("kind", kind, "phase", phase.name())
          .strongReference(true).register(registry);
    }
  }

  /**
   * Records a status written over {@code before}: a run that has just ended (a finished phase it did not have, or
   * another run's end) counts once, with its duration when the status has both times. Returns whether it ended.
   */
  public boolean changed(S before, S after) {
    P now = phaseOf.apply(after);
    if (now == null || !finished.contains(now) || before != null && now == phaseOf.apply(before)
        && Objects.equals(endOf.apply(before), endOf.apply(after))) {
      return false;
    }
    finishedCounter(now).increment();
    Duration took = between(startOf.apply(after), endOf.apply(after));
    if (took != null) {
      durationTimer(now).record(took);
    }
    return true;
  }

  private P phase(R resource) {
    P phase = resource.getStatus() == null ? null : phaseOf.apply(resource.getStatus());
    return phase == null ? phases.getEnumConstants()[0] : phase;
  }

  private Counter finishedCounter(P result) {
    return Counter.builder("quarry_runs_finished").description("Runs that ended, by kind and result")
        .tags("kind", kind, "result", result.name()).register(registry);
  }

  private Timer durationTimer(P result) {
    return Timer.builder("quarry_run_duration").description("How long runs took, from start to end")
        .tags("kind", kind, "result", result.name()).serviceLevelObjectives(DURATION_BUCKETS).register(registry);
  }

  private static Duration between(String start, String end) {
    if (start == null || end == null) {
      return null;
    }
    try {
      Duration took = Duration.between(Instant.parse(start), Instant.parse(end));
      return took.isNegative() ? null : took;
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
