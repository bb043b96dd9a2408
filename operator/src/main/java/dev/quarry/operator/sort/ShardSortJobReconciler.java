package dev.quarry.operator.sort;

import dev.quarry.api.common.Conditions;
import dev.quarry.api.shardsort.ShardSortJob;
import dev.quarry.api.shardsort.ShardSortJobStatus;
import dev.quarry.api.shardsort.ShardSortPhase;
import dev.quarry.operator.jobs.FinishedJobPods;
import dev.quarry.operator.jobs.JobState;
import dev.quarry.operator.jobs.Refusal;
import dev.quarry.operator.jobs.WorkerInformers;
import dev.quarry.operator.jobs.WorkerPod;
import dev.quarry.operator.jobs.WorkerSettings;
import dev.quarry.operator.status.EventRecorder;
import dev.quarry.operator.status.ReadyCondition;
import dev.quarry.operator.status.StatusWriter;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a ShardSortJob: one indexed Job per step, in order, each started when the one before succeeded; the status
 * follows the workers' results; scratch data is removed when the job ends or the resource is deleted. Everything the
 * reconciler needs to continue is in the API (the Jobs, the pods and the status), so a restarted operator carries on.
 */
@ControllerConfiguration(name = "shardsortjob")
public final class ShardSortJobReconciler implements Reconciler<ShardSortJob>, Cleaner<ShardSortJob> {
  static final String SCRATCH_REMOVED = "ScratchRemoved";
  private static final Logger LOG = LoggerFactory.getLogger(ShardSortJobReconciler.class);
  private static final long RECHECK_MILLIS = 30_000;
  private static final long CLEANUP_RECHECK_MILLIS = 5_000;

  private final KubernetesClient client;
  private final WorkerSettings settings;
  private final SortJobs jobs;
  private final ScratchCleaner cleaner;
  private final StatusWriter statusWriter;
  private final EventRecorder events;
  private final ReadyCondition conditions;
  private final SortMetrics metrics;

  public ShardSortJobReconciler(KubernetesClient client, WorkerSettings settings, Clock clock,
      MeterRegistry registry) {
    this.client = client;
    this.settings = settings;
    this.jobs = new SortJobs(settings);
    this.cleaner = new ScratchCleaner(client, jobs);
    this.statusWriter = new StatusWriter();
    this.events = new EventRecorder(client, clock);
    this.conditions = new ReadyCondition(clock);
    this.metrics = new SortMetrics(registry);
  }

  @Override
  public List<EventSource<?, ShardSortJob>> prepareEventSources(EventSourceContext<ShardSortJob> context) {
    metrics.kind().countIn(context.getPrimaryCache());
    return WorkerInformers.jobsAndPods(context, ShardSortJob.class, SortJobs.OWNER_LABEL);
  }

  @Override
  public UpdateControl<ShardSortJob> reconcile(ShardSortJob job, Context<ShardSortJob> context) {
    SortChildren children = SortChildren.of(context);
    // The API server refuses any change of the spec but abort (a rule on ShardSortJobSpec): a started job keeps
    // the spec its workers read.
    ShardSortJobStatus old = job.getStatus();
    ShardSortJobStatus status = isTerminal(old) ? old
        : Boolean.TRUE.equals(job.getSpec().abort()) ? abort(job, old, children)
        : advance(job, old, children);
    long recheck = RECHECK_MILLIS;
    if (isTerminal(status) && !ReadyCondition.isTrue(status.conditions(), SCRATCH_REMOVED)) {
      status = removeScratch(job, status, children);
      recheck = CLEANUP_RECHECK_MILLIS;
    }
    announce(job, old, status);
    if (statusWriter.write(job, status, context)) {
      metrics.changed(old, status);
    }
    return settled(status) ? UpdateControl.noUpdate()
        : UpdateControl.<ShardSortJob>noUpdate().rescheduleAfter(recheck);
  }

  @Override
  public DeleteControl cleanup(ShardSortJob job, Context<ShardSortJob> context) {
    SortChildren children = SortChildren.of(context);
    deleteStepJobs(children);
    ShardSortJobStatus status = job.getStatus();
    boolean nothingWritten = status == null || status.startTime() == null;
    if (nothingWritten || status != null && ReadyCondition.isTrue(status.conditions(), SCRATCH_REMOVED)) {
      return DeleteControl.defaultDelete();
    }
    ScratchCleaner.Outcome outcome = cleaner.advance(job, children);
    switch (outcome.state()) {
      case REMOVED -> {
        LOG.info("scratch-removed namespace={} name={} message=\"{}\"", job.getMetadata().getNamespace(),
            job.getMetadata().getName(), outcome.message());
        return DeleteControl.defaultDelete();
      }
      case FAILED -> {
        // Deletion must not hang on storage the operator cannot reach: say what is left, and let go.
        events.warning(job, "ScratchNotRemoved", outcome.message());
        return DeleteControl.defaultDelete();
      }
      default -> {
        return DeleteControl.noFinalizerRemoval().rescheduleAfter(CLEANUP_RECHECK_MILLIS);
      }
    }
  }

  /** Runs the steps: records each finished step's metrics and starts the next, until one runs, fails or all are done. */
  private ShardSortJobStatus advance(ShardSortJob job, ShardSortJobStatus old, SortChildren children) {
    SortStatus status = new SortStatus(job, old, conditions);
    Optional<Refusal> refusal = old == null || old.startTime() == null
        ? Refusal.ofStore(job.getSpec().store(), settings.endpoints()) : Optional.empty();
    if (refusal.isPresent()) {
      return status.refused(refusal.get());
    }
    List<SortStep> steps = SortStep.of(job.getSpec());
    // The pods of a step that finished in this pass: the last of them to finish may have run the next step too.
    List<WorkerPod> finishedPods = List.of();
    for (SortStep step : steps) {
      if (status.isDone(step)) {
        finishedPods = List.of();
        continue;
      }
      Job stepJob = children.job(SortJobs.jobName(job, step));
      if (stepJob == null && doneByLastWorker(step, finishedPods, status)) {
        finishedPods = List.of();
        continue;
      }
      if (stepJob == null) {
        start(job, step);
        return status.running(step, 0, new StepProgress(step, step.workers(job.getSpec()), List.of()), steps);
      }
      JobState state = JobState.of(stepJob);
      List<WorkerPod> pods = state.finished() ? FinishedJobPods.of(client, stepJob)
          : children.podsOf(stepJob.getMetadata().getName());
      StepProgress progress = new StepProgress(step, step.workers(job.getSpec()), pods);
      switch (state.outcome()) {
        case RUNNING -> {
          return status.running(step, state.fractionDone(), progress, steps);
        }
        case FAILED -> {
          String message = progress.failureMessage() != null ? progress.failureMessage()
              : "the " + step.command() + " Job failed: " + state.message();
          return status.failed(step, progress, "Cannot " + step.command() + ": " + message);
        }
        case SUCCEEDED -> {
          status.done(step, StepProgress.metrics(progress.reports(),
              stepJob.getStatus() == null ? null : stepJob.getStatus().getStartTime(),
              stepJob.getStatus() == null ? null : stepJob.getStatus().getCompletionTime()), progress);
          finishedPods = pods;
        }
      }
    }
    return status.succeeded();
  }

  /**
   * Whether one of {@code finishedPods}, the pods of the step before, ran {@code step} (plan, commit) as the last to
   * finish; if so, records it as done. Workers that finished together may each have run it, with the same outcome:
   * one report counts. The step before finishes in the same pass that looks here, so its pods are at hand.
   */
  private static boolean doneByLastWorker(SortStep step, List<WorkerPod> finishedPods, SortStatus status) {
    if (!step.runByLastOfStepBefore()) {
      return false;
    }
    StepProgress progress = new StepProgress(step, 1, finishedPods);
    Optional<PhaseReport> report = progress.reports().stream()
        .max(Comparator.comparing(r -> r.endTime() == null ? Instant.MIN : Instant.parse(r.endTime())));
    if (report.isEmpty()) {
      return false;
    }
    status.done(step, StepProgress.metrics(List.of(report.get()), null, null), progress);
    return true;
  }

  private ShardSortJobStatus abort(ShardSortJob job, ShardSortJobStatus old, SortChildren children) {
    deleteStepJobs(children);
    return new SortStatus(job, old, conditions).aborted();
  }

  private ShardSortJobStatus removeScratch(ShardSortJob job, ShardSortJobStatus status, SortChildren children) {
    if (status.startTime() == null) {
      return SortStatus.withCondition(status, conditions, job, SCRATCH_REMOVED, true, "NothingWritten",
          "No step ran, so there is no scratch data");
    }
    ScratchCleaner.Outcome outcome = cleaner.advance(job, children);
    return switch (outcome.state()) {
      case REMOVED -> SortStatus.withCondition(status, conditions, job, SCRATCH_REMOVED, true, "Removed",
          outcome.message());
      case FAILED -> SortStatus.withCondition(status, conditions, job, SCRATCH_REMOVED, false, "RemovalFailed",
          outcome.message());
      case REMOVING, WAITING_FOR_WORKERS -> SortStatus.withCondition(status, conditions, job, SCRATCH_REMOVED,
          false, "Removing", outcome.message());
    };
  }

  private void start(ShardSortJob job, SortStep step) {
    WorkerInformers.createIfAbsent(client, jobs.specConfigMap(job));
    WorkerInformers.createIfAbsent(client, jobs.stepJob(job, step));
    LOG.info("step-started namespace={} name={} step={} workers={}", job.getMetadata().getNamespace(),
        job.getMetadata().getName(), step.command(), step.workers(job.getSpec()));
  }

  private void deleteStepJobs(SortChildren children) {
    for (Job stepJob : children.stepJobs()) {
      if (stepJob.getMetadata().getDeletionTimestamp() == null) {
        client.resource(stepJob).withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
      }
    }
  }

  /** An event for each change of phase, a warning for failures carrying the worker's message. */
  private void announce(ShardSortJob job, ShardSortJobStatus old, ShardSortJobStatus status) {
    ShardSortPhase before = old == null ? null : old.phase();
    if (status.phase() == before) {
      return;
    }
    Condition ready = ReadyCondition.find(status.conditions(), Conditions.READY);
    String message = ready == null ? status.phase().name() : ready.getMessage();
    if (status.phase() == ShardSortPhase.Failed) {
      events.warning(job, "Failed", message);
    } else {
      events.normal(job, status.phase().name(), message);
    }
    LOG.info("phase-changed namespace={} name={} from={} to={} progress={}", job.getMetadata().getNamespace(),
        job.getMetadata().getName(), before, status.phase(), status.progress());
  }

  /** Ended, and the scratch data removed or given up on: nothing left to do. */
  private static boolean settled(ShardSortJobStatus status) {
    Condition scratch = ReadyCondition.find(status.conditions(), SCRATCH_REMOVED);
    return isTerminal(status) && scratch != null && !"Removing".equals(scratch.getReason());
  }

  static boolean isTerminal(ShardSortJobStatus status) {
    return status != null && Set.of(ShardSortPhase.Succeeded, ShardSortPhase.Failed, ShardSortPhase.Aborted)
        .contains(status.phase());
  }
}
