package dev.quarry.operator.cache;

import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCachePaths;
import dev.quarry.api.nodecache.NodeCacheStatus;
import dev.quarry.operator.jobs.Refusal;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Why the operator does not run a NodeCache's agents: a host path outside the roots the admin allows, a store
 * endpoint the admin does not allow, a Secret the admin did not list for NodeCaches, or paths that another NodeCache,
 * created before it, already holds. The chart's admission policy refuses the first three at apply; this is the line
 * that holds when the policy is off, and the only one that sees other NodeCaches.
 *
 * @param reason the Ready condition's reason
 */
record SpecRefusal(String reason, String message) {
  static final String SECRET_NOT_ALLOWED = "SecretNotAllowed";
  private static final Set<String> REASONS = Set.of("HostPathNotAllowed", "EndpointNotAllowed",
      "SecretKeyNotAllowed", SECRET_NOT_ALLOWED, "PathsOwnedByAnother");

  static Optional<SpecRefusal> of(NodeCache cache, Collection<NodeCache> all, AgentSettings settings) {
    List<String> paths = settings.roots().refusals(cache.getSpec());
    if (!paths.isEmpty()) {
      return Optional.of(new SpecRefusal("HostPathNotAllowed", String.join("; ", paths)));
    }
    Optional<Refusal> store = Refusal.ofStore(cache.getSpec().store(), settings.endpoints());
    if (store.isPresent()) {
      return Optional.of(new SpecRefusal(store.get().reason(), store.get().message()));
    }
    Optional<String> secret = settings.secrets().refusal(cache.getSpec());
    if (secret.isPresent()) {
      return Optional.of(new SpecRefusal(SECRET_NOT_ALLOWED, secret.get()));
    }
    return all.stream().filter(other -> holdsPathsBefore(other, cache))
        .sorted(Comparator.comparing(SpecRefusal::seniority))
        .map(owner -> NodeCachePaths.conflict(cache, owner)).filter(conflict -> conflict != null)
        .findFirst().map(conflict -> new SpecRefusal("PathsOwnedByAnother", conflict));
  }

  /**
   * The older of two NodeCaches keeps the paths they both want. Creation times have whole seconds: within one, the
   * NodeCache the operator already accepted keeps them, then the name decides.
   */
  private static boolean holdsPathsBefore(NodeCache other, NodeCache cache) {
    return !other.getMetadata().getName().equals(cache.getMetadata().getName())
        && seniority(other).compareTo(seniority(cache)) < 0;
  }

  private static String seniority(NodeCache cache) {
    String created = cache.getMetadata().getCreationTimestamp();
    return (created == null ? "~" : created) + "/" + (accepted(cache) ? "0" : "1") + "/"
        + cache.getMetadata().getName();
  }

  /** Whether the operator reconciled the NodeCache without refusing it. */
  private static boolean accepted(NodeCache cache) {
    NodeCacheStatus status = cache.getStatus();
    return status != null && status.conditions() != null && !status.conditions().isEmpty()
        && !REASONS.contains(status.conditions().get(0).getReason());
  }
}
