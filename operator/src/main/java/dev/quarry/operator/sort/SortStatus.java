package dev.quarry.operator.sort;

import dev.quarry.api.shardsort.PhaseMetrics;
import dev.quarry.api.shardsort.ShardSortJob;
import dev.quarry.api.shardsort.ShardSortJobStatus;
import dev.quarry.api.shardsort.ShardSortPhase;
import dev.quarry.api.shardsort.ShardSortPhases;
import dev.quarry.api.shardsort.WorkerStatus;
import dev.quarry.operator.jobs.Refusal;
import dev.quarry.operator.status.ReadyCondition;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The next status of a ShardSortJob, built from the last one: what each step finished with, where the job is now,
 * and a Ready condition whose message says what is happening or what went wrong.
 */
final class SortStatus {
  private final ShardSortJob job;
  private final ReadyCondition conditions;
  private final Long generation;
  private Long records;
  private Long shardsCreated;
  private Long shardsTotal;
  private String startTime;
  private String manifest;
  private PhaseMetrics extract;
  private PhaseMetrics plan;
  /** The partition step's, known only in the pass that saw it finish (the plan, done after it, is kept). */
  private PhaseMetrics partition;
  private PhaseMetrics create;
  private List<Condition> previousConditions;

  SortStatus(ShardSortJob job, ShardSortJobStatus old, ReadyCondition conditions) {
    this.job = job;
    this.conditions = conditions;
    this.generation = job.getMetadata().getGeneration();
    if (old != null) {
      records = old.records();
      shardsCreated = old.shardsCreated();
      shardsTotal = old.shardsTotal();
      startTime = old.startTime();
      manifest = old.manifest();
      previousConditions = old.conditions();
      if (old.phases() != null) {
        extract = old.phases().extract();
        plan = old.phases().plan();
        create = old.phases().create();
      }
    }
  }

  boolean isDone(SortStep step) {
    PhaseMetrics metrics = switch (step) {
      case EXTRACT -> extract;
      // The status keeps no metrics of its own for the partition step: the plan comes after it.
      case PARTITION -> partition != null ? partition : plan;
      case PLAN -> plan;
      case CREATE -> create;
      case COMMIT -> null;
    };
    return metrics != null && metrics.endTime() != null;
  }

  /** Records a finished step's metrics and what they mean for the totals. */
  void done(SortStep step, PhaseMetrics metrics, StepProgress progress) {
    switch (step) {
      case EXTRACT -> {
        extract = metrics;
        records = metrics.records();
      }
      case PARTITION -> partition = metrics;
      case PLAN -> {
        plan = metrics;
        shardsTotal = metrics.shards();
        records = metrics.records();
      }
      case CREATE -> {
        create = metrics;
        shardsCreated = metrics.shards();
      }
      case COMMIT -> manifest = progress.reports().stream().map(SortStatus::manifestOf).filter(Objects::nonNull)
          .findFirst().orElse(manifest);
    }
  }

  ShardSortJobStatus running(SortStep step, double fraction, StepProgress progress, List<SortStep> steps) {
    if (startTime == null) {
      startTime = conditions.now();
    }
    long done = progress.reports().size();
    int workers = step.workers(job.getSpec());
    if (step == SortStep.EXTRACT) {
      records = progress.reports().stream().mapToLong(PhaseReport::records).sum();
    } else if (step == SortStep.CREATE) {
      shardsCreated = progress.reports().stream().mapToLong(PhaseReport::shards).sum();
    }
    String message = switch (step) {
      case EXTRACT -> "Reading the input: " + done + " of " + workers + " extract workers done, " + records
          + " records so far";
      case PARTITION -> "Ordering " + records + " records in " + workers + " partitions: " + done + " done";
      case PLAN -> "Ordering " + records + " records and cutting them into shards";
      case CREATE -> "Writing output shards: " + shardsCreated + " of " + shardsTotal + " done";
      case COMMIT -> "Writing the manifest and the WebDataset index";
    };
    return build(step.phase(), percent(steps, step, fraction), null, progress.workers(),
        conditions.ready(previousConditions, false, step.phase().name(), message, generation));
  }

  ShardSortJobStatus failed(SortStep step, StepProgress progress, String message) {
    String reason = step.command().substring(0, 1).toUpperCase(Locale.ROOT) + step.command().substring(1)
        + "Failed";
    return build(ShardSortPhase.Failed, null, conditions.now(), progress.workers(),
        conditions.ready(previousConditions, false, reason, message, generation));
  }

  /** A job that never starts: its spec is refused, and no worker runs it. */
  ShardSortJobStatus refused(Refusal refusal) {
    return build(ShardSortPhase.Failed, null, conditions.now(), null, conditions.ready(previousConditions, false,
        refusal.reason(), "Cannot start: " + refusal.message(), generation));
  }

  ShardSortJobStatus aborted() {
    return build(ShardSortPhase.Aborted, null, conditions.now(), null, conditions.ready(previousConditions, false,
        "Aborted", "Aborted by spec.abort: workers stopped; shards already written are kept, no manifest was"
            + " committed", generation));
  }

  ShardSortJobStatus succeeded() {
    String message = Boolean.TRUE.equals(job.getSpec().dryRun())
        ? "Dry run: planned " + shardsTotal + " shards with " + records + " records; nothing was written"
        : "Committed " + shardsCreated + " shards with " + records + " records" + (manifest == null ? ""
            : "; manifest " + manifest);
    return build(ShardSortPhase.Succeeded, "100%", conditions.now(), null,
        conditions.ready(previousConditions, true, "Succeeded", message, generation));
  }

  /** {@code status} with one more condition set. */
  static ShardSortJobStatus withCondition(ShardSortJobStatus status, ReadyCondition conditions, ShardSortJob job,
      String type, boolean value, String reason, String message) {
    return new ShardSortJobStatus(status.observedGeneration(), status.phase(), status.progress(), status.records(),
        status.shards(), status.shardsCreated(), status.shardsTotal(), status.startTime(), status.completionTime(),
        status.manifest(), status.phases(), status.workers(), conditions.set(status.conditions(), type, value,
            reason, message, job.getMetadata().getGeneration()));
  }

  private ShardSortJobStatus build(ShardSortPhase phase, String progress, String completionTime,
      List<WorkerStatus> workers, List<Condition> newConditions) {
    String shards = shardsTotal == null ? null : (shardsCreated == null ? 0 : shardsCreated) + "/" + shardsTotal;
    ShardSortPhases phases = extract == null && plan == null && create == null ? null
        : new ShardSortPhases(extract, plan, create);
    return new ShardSortJobStatus(generation, phase, progress, records, shards, shardsCreated, shardsTotal,
        startTime, completionTime, manifest, phases, workers, newConditions);
  }

  private String percent(List<SortStep> steps, SortStep current, double fraction) {
    int total = steps.stream().mapToInt(SortStep::weight).sum();
    double done = steps.stream().filter(this::isDone).mapToInt(SortStep::weight).sum() + current.weight() * fraction;
    return Math.min(99, (int) Math.floor(100 * done / total)) + "%";
  }

  private static String manifestOf(PhaseReport report) {
    Object manifests = report.details() == null ? null : report.details().get("manifests");
    if (manifests instanceof List<?> list && !list.isEmpty()) {
      return String.valueOf(list.get(0));
    }
    return manifests instanceof String text ? text : null;
  }
}
