package dev.quarry.operator.runtime;

import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.nodecache.HostPathRoots;
import dev.quarry.api.nodecache.NodeCacheSecrets;
import dev.quarry.operator.cache.AgentSettings;
import dev.quarry.operator.jobs.WorkerSettings;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Locale;
import java.util.Map;

/**
 * Everything the operator is told by its Deployment (the chart sets each variable from values.yaml). Read once at
 * start; a wrong value stops the operator with a message naming the variable.
 */
public record OperatorSettings(String namespace, WorkerSettings workers, AgentSettings agents, int httpPort,
    boolean leaderElection, String leaseName, String identity, boolean exitOnLostLeadership) {

  public static OperatorSettings fromEnvironment(Map<String, String> env) {
    String namespace = required(env, "QUARRY_NAMESPACE");
    EndpointAllowlist endpoints = EndpointAllowlist.fromEnvironment(env);
    boolean ambientCredentials = bool(env, "QUARRY_ALLOW_AMBIENT_CREDENTIALS", false);
    WorkerSettings workers = new WorkerSettings(
        required(env, "QUARRY_WORKER_IMAGE"),
        env.getOrDefault("QUARRY_WORKER_PULL_POLICY", "IfNotPresent"),
        blankToNull(env.get("QUARRY_WORKER_SERVICE_ACCOUNT")),
        number(env, "QUARRY_JOB_TTL_SECONDS", 86400),
        endpoints,
        ambientCredentials);
    String resources = env.get("QUARRY_AGENT_RESOURCES");
    AgentSettings agents = new AgentSettings(namespace,
        required(env, "QUARRY_AGENT_IMAGE"),
        env.getOrDefault("QUARRY_AGENT_PULL_POLICY", "IfNotPresent"),
        env.getOrDefault("QUARRY_AGENT_SERVICE_ACCOUNT", "quarry-agent"),
        resources == null || resources.isBlank() ? null : resources(resources),
        blankToNull(env.get("QUARRY_AGENT_PRIORITY_CLASS")),
        HostPathRoots.fromEnvironment(env),
        endpoints,
        NodeCacheSecrets.fromEnvironment(env),
        ambientCredentials);
    return new OperatorSettings(namespace, workers, agents, number(env, "QUARRY_HTTP_PORT", 8080),
        !"false".equalsIgnoreCase(env.getOrDefault("QUARRY_LEADER_ELECTION", "true")),
        env.getOrDefault("QUARRY_LEASE_NAME", "quarry-operator"),
        env.getOrDefault("POD_NAME", "quarry-operator-" + ProcessHandle.current().pid()), true);
  }

  /**
   * The same settings, but losing leadership only stops the controllers instead of ending the process. A deployed
   * operator exits (its pod restarts and competes again); tests stop and start several operators in one JVM.
   */
  public OperatorSettings stayingAliveWithoutLeadership() {
    return new OperatorSettings(namespace, workers, agents, httpPort, leaderElection, leaseName, identity, false);
  }

  private static ResourceRequirements resources(String json) {
    try {
      return new KubernetesSerialization().unmarshal(json, ResourceRequirements.class);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Invalid QUARRY_AGENT_RESOURCES: " + json + " (must be a JSON object with"
          + " requests and limits, as in a pod's resources)", e);
    }
  }

  private static String required(Map<String, String> env, String name) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("Cannot start the operator: " + name + " is not set (the Helm chart sets"
          + " it; when running by hand, export it)");
    }
    return value;
  }

  private static int number(Map<String, String> env, String name, int fallback) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    try {
      return Integer.parseInt(value.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Invalid " + name + ": " + value + " (must be a whole number)", e);
    }
  }

  private static boolean bool(Map<String, String> env, String name, boolean fallback) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    return switch (value.strip().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("Invalid " + name + ": " + value + " (must be true or false)");
    };
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
