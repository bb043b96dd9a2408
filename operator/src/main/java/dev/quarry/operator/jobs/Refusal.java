package dev.quarry.operator.jobs;

import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.common.ObjectStore;
import java.util.Optional;

/**
 * Why the operator starts no worker for a resource: something in its spec the admin does not allow, or that the
 * schema of an older CRD let through. The resource fails with {@code reason} and {@code message} in its Ready
 * condition, and no pod ever runs with that spec.
 */
public record Refusal(String reason, String message) {
  /**
   * A store endpoint outside the admin's allowlist (workers would carry their credentials there), or a Secret key
   * that is not one of the credential key names (its value would be sent to the store).
   */
  public static Optional<Refusal> ofStore(ObjectStore store, EndpointAllowlist endpoints) {
    Optional<Refusal> endpoint = endpoints.refusal(store).map(message -> new Refusal("EndpointNotAllowed", message));
    if (endpoint.isPresent() || store == null || store.credentialsSecret() == null) {
      return endpoint;
    }
    return store.credentialsSecret().refusal().map(message -> new Refusal("SecretKeyNotAllowed", message));
  }
}
