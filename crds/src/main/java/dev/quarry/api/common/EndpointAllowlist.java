package dev.quarry.api.common;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The object store endpoints the cluster admin lets resources name (chart value {@code storeEndpoints}), so that a
 * resource author cannot point workers, and the credentials they carry, at any address the cluster can reach. An
 * endpoint is allowed when it is one of the entries or starts with one followed by {@code /}; an empty list allows
 * any endpoint. A store without an endpoint (AWS S3, from its region) is always allowed. The chart's admission policy
 * applies the same rule.
 */
public record EndpointAllowlist(List<String> endpoints) {
  /** The variable the operator and the agents read the list from: endpoints separated by commas. */
  public static final String ENVIRONMENT_VARIABLE = "QUARRY_STORE_ENDPOINTS";
  public static final EndpointAllowlist ANY = new EndpointAllowlist(List.of());
  private static final Pattern PLAIN = Pattern.compile(ObjectStore.ENDPOINT_PATTERN);

  public EndpointAllowlist {
    endpoints = List.copyOf(endpoints);
  }

  public static EndpointAllowlist fromEnvironment(Map<String, String> env) {
    String value = env.getOrDefault(ENVIRONMENT_VARIABLE, "");
    return new EndpointAllowlist(Arrays.stream(value.split(",")).map(String::strip).filter(e -> !e.isEmpty())
        .map(e -> e.endsWith("/") ? e.substring(0, e.length() - 1) : e).toList());
  }

  /** The list as {@link #ENVIRONMENT_VARIABLE} holds it. */
  public String toEnvironment() {
    return String.join(",", endpoints);
  }

  /**
   * Whether {@code endpoint} is allowed; one that is not a plain URL ({@link ObjectStore#ENDPOINT_PATTERN}: no user,
   * query, escapes or dot segments) never is, so that a path below an entry cannot climb out of it.
   */
  public boolean allows(String endpoint) {
    return endpoint == null || endpoints.isEmpty() || PLAIN.matcher(endpoint).matches()
        && endpoints.stream().anyMatch(e -> endpoint.equals(e) || endpoint.startsWith(e + "/"));
  }

  /** Why {@code store} must not be used, naming the field and what is allowed; empty when it may. */
  public Optional<String> refusal(ObjectStore store) {
    if (store == null || allows(store.endpoint())) {
      return Optional.empty();
    }
    return Optional.of("Invalid spec.store.endpoint: " + store.endpoint() + " (must be one of the endpoints the"
        + " cluster admin allows: " + String.join(", ", endpoints) + ")");
  }
}
