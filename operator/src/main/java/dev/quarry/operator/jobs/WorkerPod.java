package dev.quarry.operator.jobs;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One worker pod as the operator sees it: its Job completion index, its phase, and what its container left in the
 * termination message (the JSON result on success, the last log lines on failure).
 */
public record WorkerPod(String name, int index, String phase, String creationTimestamp, Integer exitCode,
    String terminationMessage) {
  /** The label (and annotation) the Job controller puts on each pod of an indexed Job. */
  public static final String INDEX_LABEL = "batch.kubernetes.io/job-completion-index";
  /** The label the Job controller puts on each of its pods. */
  public static final String JOB_NAME_LABEL = "batch.kubernetes.io/job-name";

  public static WorkerPod of(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    Map<String, String> annotations = pod.getMetadata().getAnnotations() == null ? Map.of()
        : pod.getMetadata().getAnnotations();
    String indexText = labels.getOrDefault(INDEX_LABEL, annotations.getOrDefault(INDEX_LABEL, "0"));
    ContainerStateTerminated terminated = terminated(pod);
    return new WorkerPod(pod.getMetadata().getName(), parseIndex(indexText),
        pod.getStatus() == null || pod.getStatus().getPhase() == null ? "Pending" : pod.getStatus().getPhase(),
        pod.getMetadata().getCreationTimestamp(),
        terminated == null ? null : terminated.getExitCode(),
        terminated == null ? null : terminated.getMessage());
  }

  public boolean succeeded() {
    return "Succeeded".equals(phase);
  }

  public boolean failed() {
    return "Failed".equals(phase);
  }

  /** Pods grouped by completion index, oldest attempt first in each group. */
  public static Map<Integer, List<WorkerPod>> byIndex(List<WorkerPod> pods) {
    Map<Integer, List<WorkerPod>> grouped = new TreeMap<>();
    pods.stream().sorted(Comparator.comparing(WorkerPod::creationTimestamp,
            Comparator.nullsFirst(Comparator.naturalOrder())).thenComparing(WorkerPod::name))
        .forEach(pod -> grouped.computeIfAbsent(pod.index(), i -> new ArrayList<>()).add(pod));
    return new LinkedHashMap<>(grouped);
  }

  private static ContainerStateTerminated terminated(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return null;
    }
    return pod.getStatus().getContainerStatuses().stream()
        .filter(status -> WorkerPods.CONTAINER.equals(status.getName()))
        .map(ContainerStatus::getState)
        .filter(state -> state != null && state.getTerminated() != null)
        .map(state -> state.getTerminated())
        .findFirst().orElse(null);
  }

  private static int parseIndex(String text) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
