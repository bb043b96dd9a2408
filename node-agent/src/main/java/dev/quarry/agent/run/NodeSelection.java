package dev.quarry.agent.run;

import dev.quarry.api.nodecache.NodeCacheSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Whether a NodeCache's agent DaemonSet still runs on a node: the node has every label of {@code spec.nodeSelector},
 * and every taint that keeps pods off it (NoSchedule, NoExecute) is tolerated by {@code spec.tolerations} or by the
 * tolerations Kubernetes gives every DaemonSet pod (a drained, not-ready or pressured node keeps its agent).
 */
final class NodeSelection {
  /** The taints the DaemonSet controller tolerates for every DaemonSet pod. */
  private static final Set<String> DAEMON_SET_TOLERATED = Set.of("node.kubernetes.io/not-ready",
      "node.kubernetes.io/unreachable", "node.kubernetes.io/disk-pressure", "node.kubernetes.io/memory-pressure",
      "node.kubernetes.io/pid-pressure", "node.kubernetes.io/unschedulable", "node.kubernetes.io/network-unavailable");

  private NodeSelection() {}

  static boolean selects(NodeCacheSpec spec, Node node) {
    Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    if (spec.nodeSelector() != null && !labels.entrySet().containsAll(spec.nodeSelector().entrySet())) {
      return false;
    }
    List<Taint> taints = node.getSpec() == null || node.getSpec().getTaints() == null ? List.of()
        : node.getSpec().getTaints();
    List<Toleration> tolerations = spec.tolerations() == null ? List.of() : spec.tolerations();
    for (Taint taint : taints) {
      boolean keepsPodsOff = "NoSchedule".equals(taint.getEffect()) || "NoExecute".equals(taint.getEffect());
      if (keepsPodsOff && !DAEMON_SET_TOLERATED.contains(taint.getKey())
          && tolerations.stream().noneMatch(toleration -> tolerates(toleration, taint))) {
        return false;
      }
    }
    return true;
  }

  /** Kubernetes' rule: an empty effect matches every effect, an empty key with Exists every key. */
  private static boolean tolerates(Toleration toleration, Taint taint) {
    if (toleration.getEffect() != null && !toleration.getEffect().isEmpty()
        && !toleration.getEffect().equals(taint.getEffect())) {
      return false;
    }
    boolean exists = "Exists".equals(toleration.getOperator());
    if (toleration.getKey() == null || toleration.getKey().isEmpty()) {
      return exists;
    }
    if (!toleration.getKey().equals(taint.getKey())) {
      return false;
    }
    return exists || Objects.equals(Objects.requireNonNullElse(toleration.getValue(), ""),
        Objects.requireNonNullElse(taint.getValue(), ""));
  }
}
