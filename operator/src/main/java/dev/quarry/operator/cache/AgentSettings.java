package dev.quarry.operator.cache;

import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.Objects;

/**
 * How agent pods run: in the operator's namespace (the NodeCache is cluster-scoped, its DaemonSet must live
 * somewhere), with the agent image, its ServiceAccount, and the resources the chart's values give.
 */
public record AgentSettings(String namespace, String image, String pullPolicy, String serviceAccount,
    ResourceRequirements resources, String priorityClassName) {
  public AgentSettings {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(image, "image");
  }
}
