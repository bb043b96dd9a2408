package dev.quarry.operator.cache;

import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCachePaths;
import dev.quarry.operator.jobs.Refusal;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Why the operator does not run a NodeCache's agents on its spec: a host path outside the roots the admin allows, a
 * store endpoint the admin does not allow, a Secret the admin did not list for NodeCaches, or paths that another
 * NodeCache holds. The chart's admission policy refuses the first three at apply; this is the line that holds when the policy is off, and the only one that sees
 * other NodeCaches. A spec not refused is accepted ({@code status.acceptedGeneration}), and only then do the agents
 * act on it.
 *
 * @param reason the Ready condition's reason
 */
record SpecRefusal(String reason, String message) {
  static final String SECRET_NOT_ALLOWED = "SecretNotAllowed";

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
        .map(holder -> NodeCachePaths.conflict(cache, holder)).filter(conflict -> conflict != null)
        .findFirst().map(conflict -> new SpecRefusal("PathsOwnedByAnother", conflict));
  }

  /**
   * Which of two NodeCaches keeps the paths they both want: the one accepted first. A NodeCache whose current spec is
   * accepted holds its paths (its agents use them), so a spec change of another, however old, that wants them is
   * refused and its agents keep their last accepted spec. Then one accepted at an earlier generation comes before one
   * never accepted; within a rank (two accepted within one reconcile of each other), the older, then the name.
   */
  private static boolean holdsPathsBefore(NodeCache other, NodeCache cache) {
    return !other.getMetadata().getName().equals(cache.getMetadata().getName())
        && seniority(other).compareTo(seniority(cache)) < 0;
  }

  private static String seniority(NodeCache cache) {
    String created = cache.getMetadata().getCreationTimestamp();
    String rank = cache.specAccepted() ? "0" : cache.everAccepted() ? "1" : "2";
    return rank + "/" + (created == null ? "~" : created) + "/" + cache.getMetadata().getName();
  }
}
