package dev.quarry.operator.sync;

import dev.quarry.api.datasetsync.DatasetSync;
import dev.quarry.api.datasetsync.DatasetSyncStatus;
import dev.quarry.api.datasetsync.SyncPhase;
import dev.quarry.operator.jobs.FinishedJobPods;
import dev.quarry.operator.jobs.JobState;
import dev.quarry.operator.jobs.Refusal;
import dev.quarry.operator.jobs.WorkerInformers;
import dev.quarry.operator.jobs.WorkerJson;
import dev.quarry.operator.jobs.WorkerPod;
import dev.quarry.operator.jobs.WorkerSettings;
import dev.quarry.operator.status.EventRecorder;
import dev.quarry.operator.status.ReadyCondition;
import dev.quarry.operator.status.StatusWriter;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each DatasetSync once per generation and trigger value: one Job with the volume mounted, never two on one
 * volume at a time, and the worker's JSON result copied into the status. Jobs go with the resource by owner
 * reference; nothing outside the cluster needs cleaning, so there is no finalizer.
 */
// Generation-aware filtering would drop a trigger annotation change; SpecOrTriggerChanged lets exactly those through.
@ControllerConfiguration(name = "datasetsync", generationAwareEventProcessing = false,
    informer = @Informer(onUpdateFilter = SpecOrTriggerChanged.class))
public final class DatasetSyncReconciler implements Reconciler<DatasetSync> {
  private static final Logger LOG = LoggerFactory.getLogger(DatasetSyncReconciler.class);
  private static final long WAIT_RECHECK_MILLIS = 10_000;
  private static final long RUN_RECHECK_MILLIS = 60_000;

  private final KubernetesClient client;
  private final WorkerSettings settings;
  private final SyncJobs jobs;
  private final VolumeGuard volumes;
  private final StatusWriter statusWriter;
  private final EventRecorder events;
  private final ReadyCondition conditions;
  private final SyncMetrics metrics;

  public DatasetSyncReconciler(KubernetesClient client, WorkerSettings settings, Clock clock,
      MeterRegistry registry) {
    this.client = client;
    this.settings = settings;
    this.jobs = new SyncJobs(settings);
    this.volumes = new VolumeGuard(client);
    this.statusWriter = new StatusWriter();
    this.events = new EventRecorder(client, clock);
    this.conditions = new ReadyCondition(clock);
    this.metrics = new SyncMetrics(registry);
  }

  @Override
  public List<EventSource<?, DatasetSync>> prepareEventSources(EventSourceContext<DatasetSync> context) {
    metrics.kind().countIn(context.getPrimaryCache());
    return WorkerInformers.jobsAndPods(context, DatasetSync.class, SyncJobs.OWNER_LABEL);
  }

  @Override
  public UpdateControl<DatasetSync> reconcile(DatasetSync sync, Context<DatasetSync> context) {
    SyncRun run = SyncRun.of(sync);
    if (run.finishedIn(sync.getStatus())) {
      return UpdateControl.noUpdate();
    }
    String jobName = run.jobName(sync);
    List<Job> owned = List.copyOf(context.getSecondaryResources(Job.class));
    stopSupersededRuns(owned, jobName);
    Job job = owned.stream().filter(j -> jobName.equals(j.getMetadata().getName())).findFirst().orElse(null);
    SyncStatus next = new SyncStatus(sync, run, conditions);
    DatasetSyncStatus status;
    long recheck = RUN_RECHECK_MILLIS;
    Optional<Refusal> refusal = job == null ? SyncJobs.refusal(sync.getSpec(), settings) : Optional.empty();
    if (refusal.isPresent()) {
      status = next.refused(refusal.get());
    } else if (job == null) {
      Optional<String> holder = volumes.startIfFree(sync.getMetadata().getNamespace(),
          sync.getSpec().volume().claimName(), () -> WorkerInformers.createIfAbsent(client, jobs.job(sync, run)));
      if (holder.isPresent()) {
        status = next.waiting(holder.get());
        recheck = WAIT_RECHECK_MILLIS;
      } else {
        status = next.running(conditions.now());
        LOG.info("run-started namespace={} name={} operation={} generation={} job={}",
            sync.getMetadata().getNamespace(), sync.getMetadata().getName(), sync.getSpec().operation(),
            run.generation(), jobName);
      }
    } else {
      status = observe(sync, job, context, next);
    }
    announce(sync, status);
    DatasetSyncStatus before = sync.getStatus();
    if (statusWriter.write(sync, status, context)) {
      metrics.changed(before, status);
    }
    return run.finishedIn(status) ? UpdateControl.noUpdate()
        : UpdateControl.<DatasetSync>noUpdate().rescheduleAfter(recheck);
  }

  private DatasetSyncStatus observe(DatasetSync sync, Job job, Context<DatasetSync> context, SyncStatus next) {
    String startTime = job.getStatus() != null && job.getStatus().getStartTime() != null
        ? job.getStatus().getStartTime() : sync.getStatus() != null ? sync.getStatus().startTime() : null;
    JobState state = JobState.of(job);
    List<WorkerPod> pods = state.finished() ? FinishedJobPods.of(client, job)
        : context.getSecondaryResources(Pod.class).stream()
            .filter(pod -> job.getMetadata().getName().equals(pod.getMetadata().getLabels().get(
                WorkerPod.JOB_NAME_LABEL)))
            .map(WorkerPod::of).toList();
    return switch (state.outcome()) {
      case RUNNING -> next.running(startTime);
      case SUCCEEDED -> next.succeeded(pods.stream().filter(WorkerPod::succeeded).reduce((a, b) -> b)
              .flatMap(pod -> WorkerJson.parse(pod.terminationMessage(), SyncReport.class)).orElse(null),
          startTime, job.getStatus() == null ? null : job.getStatus().getCompletionTime());
      case FAILED -> next.failed(startTime, pods.stream().filter(WorkerPod::failed)
          .map(pod -> WorkerJson.lastLine(pod.terminationMessage())).filter(Objects::nonNull).reduce((a, b) -> b)
          .orElse("the Job failed (" + state.reason() + "): " + state.message()));
    };
  }

  /** A new generation or trigger replaces a run still going: its Job is deleted, and the volume waits for its pods. */
  private void stopSupersededRuns(List<Job> owned, String current) {
    for (Job job : owned) {
      if (!current.equals(job.getMetadata().getName()) && !JobState.of(job).finished()
          && job.getMetadata().getDeletionTimestamp() == null) {
        client.resource(job).withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
        LOG.info("run-superseded namespace={} job={}", job.getMetadata().getNamespace(),
            job.getMetadata().getName());
      }
    }
  }

  private void announce(DatasetSync sync, DatasetSyncStatus status) {
    DatasetSyncStatus old = sync.getStatus();
    if (old != null && old.phase() == status.phase() && Objects.equals(old.observedGeneration(),
        status.observedGeneration()) && Objects.equals(old.observedTrigger(), status.observedTrigger())) {
      return;
    }
    String message = status.conditions().get(0).getMessage();
    if (status.phase() == SyncPhase.Failed) {
      events.warning(sync, status.conditions().get(0).getReason(), message);
    } else {
      events.normal(sync, status.phase().name(), message);
    }
  }
}
