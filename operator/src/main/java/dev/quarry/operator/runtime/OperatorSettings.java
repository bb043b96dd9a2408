package dev.quarry.operator.runtime;

import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.nodecache.HostPathRoots;
import dev.quarry.api.nodecache.NodeCacheSecrets;
import dev.quarry.operator.cache.AgentSettings;
import dev.quarry.operator.jobs.WorkerPodDefaults;
import dev.quarry.operator.jobs.WorkerSettings;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Everything the operator is told by its Deployment (the chart sets each variable from values.yaml). Read once at
 * start; a wrong value stops the operator with a message naming the variable. {@code watchNamespaces} empty: the
 * namespaced kinds of every namespace.
 */
public record OperatorSettings(String namespace, WorkerSettings workers, AgentSettings agents, int httpPort,
    boolean leaderElection, String leaseName, String identity, boolean exitOnLostLeadership,
    Set<String> watchNamespaces) {
  private static final KubernetesSerialization JSON = new KubernetesSerialization();
  private static final Set<String> EMPTY_JSON = Set.of("{}", "[]", "null");

  public OperatorSettings {
    watchNamespaces = Set.copyOf(watchNamespaces);
  }

  public static OperatorSettings fromEnvironment(Map<String, String> env) {
    String namespace = required(env, "QUARRY_NAMESPACE");
    EndpointAllowlist endpoints = EndpointAllowlist.fromEnvironment(env);
    boolean ambientCredentials = bool(env, "QUARRY_ALLOW_AMBIENT_CREDENTIALS", false);
    List<LocalObjectReference> pullSecrets = List.of(json(env, "QUARRY_IMAGE_PULL_SECRETS",
        LocalObjectReference[].class, new LocalObjectReference[0], "a JSON array of {\"name\": <Secret>}"));
    WorkerSettings workers = new WorkerSettings(
        required(env, "QUARRY_WORKER_IMAGE"),
        env.getOrDefault("QUARRY_WORKER_PULL_POLICY", "IfNotPresent"),
        blankToNull(env.get("QUARRY_WORKER_SERVICE_ACCOUNT")),
        number(env, "QUARRY_JOB_TTL_SECONDS", 86400),
        endpoints,
        ambientCredentials,
        workerPodDefaults(env, pullSecrets));
    AgentSettings agents = new AgentSettings(namespace,
        required(env, "QUARRY_AGENT_IMAGE"),
        env.getOrDefault("QUARRY_AGENT_PULL_POLICY", "IfNotPresent"),
        env.getOrDefault("QUARRY_AGENT_SERVICE_ACCOUNT", "quarry-agent"),
        json(env, "QUARRY_AGENT_RESOURCES", ResourceRequirements.class, null, RESOURCES),
        blankToNull(env.get("QUARRY_AGENT_PRIORITY_CLASS")),
        HostPathRoots.fromEnvironment(env),
        endpoints,
        NodeCacheSecrets.fromEnvironment(env),
        ambientCredentials,
        pullSecrets,
        blankToNull(env.get("QUARRY_LOG_FORMAT")));
    return new OperatorSettings(namespace, workers, agents, number(env, "QUARRY_HTTP_PORT", 8080),
        !"false".equalsIgnoreCase(env.getOrDefault("QUARRY_LEADER_ELECTION", "true")),
        env.getOrDefault("QUARRY_LEASE_NAME", "quarry-operator"),
        env.getOrDefault("POD_NAME", "quarry-operator-" + ProcessHandle.current().pid()), true,
        namespaces(env.get("QUARRY_WATCH_NAMESPACES")));
  }

  private static final String RESOURCES = "a JSON object with requests and limits, as in a pod's resources";

  /** The chart's worker.* values; a variable that is not set keeps the built-in default. */
  private static WorkerPodDefaults workerPodDefaults(Map<String, String> env, List<LocalObjectReference> secrets) {
    WorkerPodDefaults builtIn = WorkerPodDefaults.BUILT_IN;
    return new WorkerPodDefaults(
        json(env, "QUARRY_WORKER_RESOURCES", ResourceRequirements.class, builtIn.resources(), RESOURCES),
        json(env, "QUARRY_WORKER_NODE_SELECTOR", StringMap.class, null, "a JSON object of labels"),
        List.of(json(env, "QUARRY_WORKER_TOLERATIONS", Toleration[].class, new Toleration[0],
            "a JSON array of tolerations, as in a pod spec")),
        json(env, "QUARRY_WORKER_AFFINITY", Affinity.class, builtIn.affinity(), "a JSON object, as a pod's affinity"),
        blankToNull(env.get("QUARRY_WORKER_PRIORITY_CLASS")),
        json(env, "QUARRY_WORKER_POD_SECURITY_CONTEXT", PodSecurityContext.class, builtIn.podSecurityContext(),
            "a JSON object, as a pod's securityContext"),
        json(env, "QUARRY_WORKER_SECURITY_CONTEXT", SecurityContext.class, builtIn.securityContext(),
            "a JSON object, as a container's securityContext"),
        secrets);
  }

  /** For reading a JSON object of strings with its type known at run time. */
  private static final class StringMap extends java.util.TreeMap<String, String> {}

  private static Set<String> namespaces(String value) {
    if (value == null || value.isBlank()) {
      return Set.of();
    }
    return new TreeSet<>(Arrays.stream(value.split(",")).map(String::strip).filter(n -> !n.isEmpty()).toList());
  }

  /**
   * The same settings, but losing leadership only stops the controllers instead of ending the process. A deployed
   * operator exits (its pod restarts and competes again); tests stop and start several operators in one JVM.
   */
  public OperatorSettings stayingAliveWithoutLeadership() {
    return new OperatorSettings(namespace, workers, agents, httpPort, leaderElection, leaseName, identity, false,
        watchNamespaces);
  }

  /**
   * The variable read as JSON of {@code type}; {@code fallback} when it is not set or empty (the chart passes an
   * empty value as {@code {}} or {@code []}).
   */
  private static <T> T json(Map<String, String> env, String name, Class<T> type, T fallback, String must) {
    String value = env.get(name);
    if (value == null || value.isBlank() || EMPTY_JSON.contains(value.strip())) {
      return fallback;
    }
    T parsed;
    try {
      parsed = JSON.unmarshal(value, type);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Invalid " + name + ": " + value + " (must be " + must + ")", e);
    }
    return parsed == null ? fallback : parsed;
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
