package dev.quarry.operator.sort;

import dev.quarry.api.shardsort.ShardSortJob;
import dev.quarry.operator.jobs.JobState;
import dev.quarry.operator.jobs.WorkerInformers;
import dev.quarry.operator.jobs.WorkerJson;
import dev.quarry.operator.jobs.WorkerPod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * Removes a job's scratch data by running the cleanup Job once its workers have stopped (a worker still running
 * could write again after the sweep). Called when the job ends and when the resource is deleted.
 */
final class ScratchCleaner {
  /** How far the removal got. */
  enum State {
    WAITING_FOR_WORKERS,
    REMOVING,
    REMOVED,
    FAILED
  }

  record Outcome(State state, String message) {}

  private final KubernetesClient client;
  private final SortJobs jobs;

  ScratchCleaner(KubernetesClient client, SortJobs jobs) {
    this.client = client;
    this.jobs = jobs;
  }

  /** One step of the removal; call again on the next reconcile until the state is REMOVED or FAILED. */
  Outcome advance(ShardSortJob job, SortChildren children) {
    String scratch = ScratchPrefix.of(job);
    long running = children.workerPods().stream().filter(pod -> !pod.succeeded() && !pod.failed()).count();
    if (running > 0) {
      return new Outcome(State.WAITING_FOR_WORKERS, "Waiting for " + running + " worker pods to stop before"
          + " removing " + scratch);
    }
    Job clean = children.job(SortJobs.cleanName(job));
    if (clean == null) {
      WorkerInformers.createIfAbsent(client, jobs.cleanJob(job));
      return new Outcome(State.REMOVING, "Removing " + scratch);
    }
    JobState state = JobState.of(clean);
    return switch (state.outcome()) {
      case RUNNING -> new Outcome(State.REMOVING, "Removing " + scratch);
      case SUCCEEDED -> new Outcome(State.REMOVED, "Removed " + scratch);
      case FAILED -> new Outcome(State.FAILED, "Cannot remove scratch data under " + scratch + ": "
          + failure(children.podsOf(clean.getMetadata().getName()), state) + "; delete it by hand");
    };
  }

  private static String failure(List<WorkerPod> pods, JobState state) {
    return pods.stream().filter(WorkerPod::failed).map(pod -> WorkerJson.lastLine(pod.terminationMessage()))
        .filter(line -> line != null).reduce((a, b) -> b)
        .orElse(state.message() != null ? state.message() : "the cleanup Job failed");
  }
}
