package dev.quarry.operator.sort;

import dev.quarry.api.shardsort.PhaseMetrics;
import dev.quarry.api.shardsort.ShardSortJob;
import dev.quarry.api.shardsort.ShardSortJobStatus;
import dev.quarry.api.shardsort.ShardSortPhase;
import dev.quarry.api.shardsort.ShardSortPhases;
import dev.quarry.operator.status.KindMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Set;
import java.util.function.Function;

/**
 * ShardSortJob metrics: the kind's ({@link KindMetrics}), the records and input bytes of succeeded jobs
 * ({@code quarry_sort_records_total}, {@code quarry_sort_bytes_total}), and how long each step took
 * ({@code quarry_sort_step_duration_seconds{step}}, a histogram), each counted once, when the status first says it.
 */
final class SortMetrics {
  private final KindMetrics<ShardSortJob, ShardSortJobStatus, ShardSortPhase> kind;
  private final Counter records;
  private final Counter bytes;
  private final MeterRegistry registry;

  SortMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.kind = new KindMetrics<>(registry, "ShardSortJob", ShardSortPhase.class, ShardSortJobStatus::phase,
        ShardSortJobStatus::startTime, ShardSortJobStatus::completionTime, Set.of(ShardSortPhase.Succeeded, ShardSortPhase.Failed, ShardSortPhase.Aborted));
    this.records = Counter.builder("quarry_sort_records").description("Records sorted by succeeded ShardSortJobs")
        .register(registry);
    this.bytes = Counter.builder("quarry_sort_bytes").baseUnit("bytes")
        .description("Input bytes sorted by succeeded ShardSortJobs (what their extract step read)")
        .register(registry);
    for (String step : new String[] {"extract", "plan", "create"}) {
      stepTimer(step);
    }
  }

  KindMetrics<ShardSortJob, ShardSortJobStatus, ShardSortPhase> kind() {
    return kind;
  }

  /** Records a status the operator has just written over {@code before}. */
  void changed(ShardSortJobStatus before, ShardSortJobStatus after) {
    step("extract", before, after, ShardSortPhases::extract);
    step("plan", before, after, ShardSortPhases::plan);
    step("create", before, after, ShardSortPhases::create);
    if (kind.changed(before, after)
        && after.phase() == ShardSortPhase.Succeeded) {
      records.increment(after.records() == null ? 0 : after.records());
      PhaseMetrics extract = after.phases() == null ? null : after.phases().extract();
      bytes.increment(extract == null || extract.bytes() == null ? 0 : extract.bytes());
    }
  }

  private void step(String step, ShardSortJobStatus before, ShardSortJobStatus after,
      Function<ShardSortPhases, PhaseMetrics> of) {
    Double was = elapsed(before, of);
    Double now = elapsed(after, of);
    if (was == null && now != null) {
      stepTimer(step).record(Duration.ofMillis(Math.round(now * 1000)));
    }
  }

  private static Double elapsed(ShardSortJobStatus status, Function<ShardSortPhases, PhaseMetrics> of) {
    PhaseMetrics metrics = status == null || status.phases() == null ? null : of.apply(status.phases());
    return metrics == null ? null : metrics.elapsedSeconds();
  }

  private Timer stepTimer(String step) {
    return Timer.builder("quarry_sort_step_duration").description("How long each step of a ShardSortJob took")
        .tags("step", step).serviceLevelObjectives(KindMetrics.DURATION_BUCKETS).register(registry);
  }
}
