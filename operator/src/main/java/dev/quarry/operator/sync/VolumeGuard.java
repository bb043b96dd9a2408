package dev.quarry.operator.sync;

import dev.quarry.operator.jobs.JobState;
import dev.quarry.operator.jobs.WorkerLabels;
import dev.quarry.operator.jobs.WorkerPod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Keeps runs on one volume apart: a run starts only when no other sync Job on the same PVC is active and no pod of
 * one is still running (a deleted Job's pods may still be writing). The check and the creation happen under one lock
 * per volume, reading the API server rather than a cache, so two DatasetSyncs reconciled at once cannot both start.
 * Leader election makes this process the only one creating sync Jobs.
 */
final class VolumeGuard {
  private final KubernetesClient client;
  private final ConcurrentMap<String, Object> locks = new ConcurrentHashMap<>();

  VolumeGuard(KubernetesClient client) {
    this.client = client;
  }

  /** Runs {@code start} if the volume is free and returns empty; otherwise returns what holds the volume. */
  Optional<String> startIfFree(String namespace, String claim, Runnable start) {
    Object lock = locks.computeIfAbsent(namespace + "/" + claim, key -> new Object());
    synchronized (lock) {
      Optional<String> holder = holder(namespace, claim);
      if (holder.isEmpty()) {
        start.run();
      }
      return holder;
    }
  }

  private Optional<String> holder(String namespace, String claim) {
    String label = SyncJobs.claimLabel(claim);
    for (Job job : client.batch().v1().jobs().inNamespace(namespace).withLabel(WorkerLabels.MANAGED_BY,
        WorkerLabels.MANAGER).withLabel(SyncJobs.CLAIM_LABEL, label).list().getItems()) {
      if (!JobState.of(job).finished() || job.getMetadata().getDeletionTimestamp() != null) {
        return Optional.of(describe(job));
      }
    }
    return client.pods().inNamespace(namespace).withLabel(WorkerLabels.MANAGED_BY, WorkerLabels.MANAGER)
        .withLabel(SyncJobs.CLAIM_LABEL, label).list().getItems().stream()
        .map(WorkerPod::of).filter(pod -> !pod.succeeded() && !pod.failed()).findFirst()
        .map(pod -> "pod " + pod.name());
  }

  private static String describe(Job job) {
    String owner = job.getMetadata().getLabels().get(SyncJobs.OWNER_LABEL);
    String operation = job.getMetadata().getLabels().get(WorkerLabels.ROLE);
    return "DatasetSync " + owner + " (" + operation + ", Job " + job.getMetadata().getName() + ")";
  }
}
