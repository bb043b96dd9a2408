package dev.quarry.operator.sort;

import dev.quarry.api.shardsort.ShardSortJob;
import dev.quarry.operator.jobs.WorkerLabels;
import dev.quarry.operator.jobs.WorkerPod;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The Jobs and pods of one ShardSortJob, as the informers' caches hold them. */
record SortChildren(List<Job> jobs, List<Pod> pods) {
  static SortChildren of(Context<ShardSortJob> context) {
    return new SortChildren(List.copyOf(context.getSecondaryResources(Job.class)),
        List.copyOf(context.getSecondaryResources(Pod.class)));
  }

  Job job(String name) {
    return jobs.stream().filter(job -> name.equals(job.getMetadata().getName())).findFirst().orElse(null);
  }

  /** The step Jobs that exist: everything but the cleanup Job. */
  List<Job> stepJobs() {
    return jobs.stream().filter(job -> !SortJobs.CLEAN_ROLE.equals(role(job.getMetadata().getLabels()))).toList();
  }

  List<WorkerPod> podsOf(String jobName) {
    return pods.stream()
        .filter(pod -> Objects.equals(jobName, pod.getMetadata().getLabels() == null ? null
            : pod.getMetadata().getLabels().get(WorkerPod.JOB_NAME_LABEL)))
        .map(WorkerPod::of).toList();
  }

  /** Pods of the step Jobs (not of the cleanup Job). */
  List<WorkerPod> workerPods() {
    return pods.stream().filter(pod -> !SortJobs.CLEAN_ROLE.equals(role(pod.getMetadata().getLabels())))
        .map(WorkerPod::of).toList();
  }

  private static String role(Map<String, String> labels) {
    return labels == null ? null : labels.get(WorkerLabels.ROLE);
  }
}
