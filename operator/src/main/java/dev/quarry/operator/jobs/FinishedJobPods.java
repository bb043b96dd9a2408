package dev.quarry.operator.jobs;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * The pods of a finished Job, read from the API server rather than the informer's cache: the pod cache can lag behind
 * the Job's own status, and a result missed there would be lost for good (a finished Job's pods are read once).
 */
public final class FinishedJobPods {
  private FinishedJobPods() {}

  /** Every pod of {@code job}, as the API server has them now. */
  public static List<WorkerPod> of(KubernetesClient client, Job job) {
    return client.pods().inNamespace(job.getMetadata().getNamespace())
        .withLabel(WorkerPod.JOB_NAME_LABEL, job.getMetadata().getName())
        .list().getItems().stream().map(WorkerPod::of).toList();
  }
}
