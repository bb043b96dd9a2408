package dev.quarry.api.nodecache;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Secrets a NodeCache may name in {@code spec.store.credentialsSecret}, as the cluster admin lists them in the
 * chart (value {@code nodeCache.credentialsSecrets}). A NodeCache is cluster-scoped and its Secret lives in the
 * release namespace, beside the operator's own: without this list, whoever may create a NodeCache could have the
 * agents carry the keys of any Secret there to a store. An empty list lets no NodeCache name a Secret.
 *
 * <p>A list of names in the chart rather than a label on the Secret, because the chart's admission policy can then
 * refuse a NodeCache at apply (a policy cannot look at another object), and neither the operator nor the agent
 * needs the right to read Secrets: the kubelet alone reads the listed ones, for the agents' environment. The
 * admission policy, the operator and the agent all apply this rule.
 */
public record NodeCacheSecrets(List<String> names) {
  /** The variable the operator and the agents read the list from: names separated by commas. */
  public static final String ENVIRONMENT_VARIABLE = "QUARRY_NODECACHE_CREDENTIALS_SECRETS";
  public static final NodeCacheSecrets NONE = new NodeCacheSecrets(List.of());

  public NodeCacheSecrets {
    names = List.copyOf(names);
  }

  public static NodeCacheSecrets fromEnvironment(Map<String, String> env) {
    String value = env.getOrDefault(ENVIRONMENT_VARIABLE, "");
    return new NodeCacheSecrets(Arrays.stream(value.split(",")).map(String::strip).filter(n -> !n.isEmpty())
        .toList());
  }

  /** The list as {@link #ENVIRONMENT_VARIABLE} holds it. */
  public String toEnvironment() {
    return String.join(",", names);
  }

  /** Why {@code spec} must not be used, naming the field and what is allowed; empty when it names no other Secret. */
  public Optional<String> refusal(NodeCacheSpec spec) {
    if (spec.store() == null || spec.store().credentialsSecret() == null
        || names.contains(spec.store().credentialsSecret().name())) {
      return Optional.empty();
    }
    return Optional.of("Invalid spec.store.credentialsSecret.name: " + spec.store().credentialsSecret().name()
        + " (must be one of the Secrets the cluster admin lets NodeCaches use, in the chart value"
        + " nodeCache.credentialsSecrets: " + (names.isEmpty() ? "none listed" : String.join(", ", names)) + ")");
  }
}
