package dev.quarry.operator.cache;

import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.nodecache.HostPathRoots;
import dev.quarry.api.nodecache.NodeCacheSecrets;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.List;
import java.util.Objects;

/**
 * How agent pods run: in the operator's namespace (the NodeCache is cluster-scoped, its DaemonSet must live
 * somewhere), with the agent image, its ServiceAccount, and the resources the chart's values give; and what the
 * admin lets a NodeCache use: the host folders, the store endpoints, the Secrets of the release namespace, and
 * whether an agent without the NodeCache's Secret may use the credentials of its pod or node; the Secrets the image
 * is pulled with, and the agents' log format (null: the agent's default, text).
 */
public record AgentSettings(String namespace, String image, String pullPolicy, String serviceAccount,
    ResourceRequirements resources, String priorityClassName, HostPathRoots roots, EndpointAllowlist endpoints,
    NodeCacheSecrets secrets, boolean ambientCredentials, List<LocalObjectReference> imagePullSecrets,
    String logFormat) {
  public AgentSettings {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(image, "image");
    Objects.requireNonNull(roots, "roots");
    Objects.requireNonNull(endpoints, "endpoints");
    Objects.requireNonNull(secrets, "secrets");
    imagePullSecrets = imagePullSecrets == null ? List.of() : List.copyOf(imagePullSecrets);
  }
}
