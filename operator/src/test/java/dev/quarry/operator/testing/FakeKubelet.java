package dev.quarry.operator.testing;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Plays the Job controller and the kubelet, which the test API server does not have: makes a Job's pods and moves
 * them and the Job through the states a real cluster would, with the termination messages workers leave.
 */
public final class FakeKubelet {
  private final KubernetesClient client;

  public FakeKubelet(KubernetesClient client) {
    this.client = client;
  }

  /** Pods need a ServiceAccount to exist; the controller that creates "default" is not running here. */
  public void prepareNamespace(String namespace) {
    client.resource(new ServiceAccountBuilder().withNewMetadata().withName("default").withNamespace(namespace)
        .endMetadata().build()).createOr(existing -> existing.update());
  }

  /** A pod of {@code job} for {@code index}, Running. */
  public Pod run(Job job, int index) {
    Map<String, String> labels = new HashMap<>(job.getSpec().getTemplate().getMetadata().getLabels());
    labels.put("batch.kubernetes.io/job-name", job.getMetadata().getName());
    labels.put("batch.kubernetes.io/job-completion-index", String.valueOf(index));
    Pod pod = client.resource(new PodBuilder()
        .withNewMetadata().withGenerateName(job.getMetadata().getName() + "-" + index + "-")
        .withNamespace(job.getMetadata().getNamespace()).withLabels(labels).endMetadata()
        .withNewSpec().withRestartPolicy("Never").withNodeName("node-a")
        .addNewContainer().withName("worker").withImage("quarry-worker:test").endContainer().endSpec()
        .build()).create();
    pod.setStatus(new PodStatusBuilder().withPhase("Running").build());
    return client.resource(pod).updateStatus();
  }

  /** A pod of {@code job} for {@code index} that ran and exited with {@code exitCode} and {@code message}. */
  public Pod finish(Job job, int index, int exitCode, String message) {
    Pod pod = run(job, index);
    pod.setStatus(new PodStatusBuilder()
        .withPhase(exitCode == 0 ? "Succeeded" : "Failed")
        .withContainerStatuses(new ContainerStatusBuilder().withName("worker").withImage("quarry-worker:test")
            .withImageID("").withReady(false).withRestartCount(0)
            .withNewState().withNewTerminated().withExitCode(exitCode).withMessage(message)
            .withReason(exitCode == 0 ? "Completed" : "Error").endTerminated().endState().build())
        .build());
    return client.resource(pod).updateStatus();
  }

  /** The Job succeeded: every index completed. */
  public Job complete(Job job) {
    int completions = job.getSpec().getCompletions() == null ? 1 : job.getSpec().getCompletions();
    String now = now();
    Job current = client.resource(job).get();
    current.setStatus(new JobStatusBuilder()
        .withStartTime(startTime(current, now)).withCompletionTime(now).withSucceeded(completions).withActive(0)
        .withCompletedIndexes("Indexed".equals(job.getSpec().getCompletionMode())
            ? (completions == 1 ? "0" : "0-" + (completions - 1)) : null)
        .withConditions(
            new JobConditionBuilder().withType("SuccessCriteriaMet").withStatus("True").withReason(
                "CompletionsReached").withLastTransitionTime(now).withLastProbeTime(now).build(),
            new JobConditionBuilder().withType("Complete").withStatus("True").withReason("CompletionsReached")
                .withLastTransitionTime(now).withLastProbeTime(now).build())
        .withReady(0).withTerminating(0)
        .build());
    return client.resource(current).updateStatus();
  }

  /** The Job is running with {@code succeeded} indexes done (the first ones). */
  public Job progress(Job job, int succeeded) {
    Job current = client.resource(job).get();
    List<String> done = new ArrayList<>();
    for (int i = 0; i < succeeded; i++) {
      done.add(String.valueOf(i));
    }
    current.setStatus(new JobStatusBuilder()
        .withStartTime(startTime(current, now())).withSucceeded(succeeded).withActive(current.getSpec().getParallelism() - succeeded)
        .withCompletedIndexes(done.isEmpty() ? null : String.join(",", done)).withReady(0).withTerminating(0)
        .build());
    return client.resource(current).updateStatus();
  }

  /** The Job failed because index {@code failedIndex} ran out of retries. */
  public Job fail(Job job, int failedIndex) {
    String now = now();
    Job current = client.resource(job).get();
    boolean indexed = "Indexed".equals(job.getSpec().getCompletionMode());
    current.setStatus(new JobStatusBuilder()
        .withStartTime(startTime(current, now)).withFailed(1).withActive(0).withSucceeded(0)
        .withFailedIndexes(indexed ? String.valueOf(failedIndex) : null)
        .withConditions(
            new JobConditionBuilder().withType("FailureTarget").withStatus("True").withReason(
                indexed ? "MaxFailedIndexesExceeded" : "BackoffLimitExceeded").withMessage(
                "Job has failed indexes").withLastTransitionTime(now).withLastProbeTime(now).build(),
            new JobConditionBuilder().withType("Failed").withStatus("True").withReason(
                indexed ? "MaxFailedIndexesExceeded" : "BackoffLimitExceeded").withMessage(
                "Job has failed indexes").withLastTransitionTime(now).withLastProbeTime(now).build())
        .withReady(0).withTerminating(0)
        .build());
    return client.resource(current).updateStatus();
  }

  /** The API server refuses to change a Job's start time once set. */
  private static String startTime(Job job, String now) {
    return job.getStatus() != null && job.getStatus().getStartTime() != null ? job.getStatus().getStartTime() : now;
  }

  private static String now() {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
