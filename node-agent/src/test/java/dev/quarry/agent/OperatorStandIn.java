package dev.quarry.agent;

import dev.quarry.api.nodecache.AcceptedPaths;
import dev.quarry.api.nodecache.CachePhase;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCacheStatus;
import io.fabric8.kubernetes.client.KubernetesClient;

/** The operator's part the agent depends on, for tests without an operator: accepting a NodeCache's current spec. */
final class OperatorStandIn {
  private OperatorStandIn() {}

  /** Records the NodeCache's current generation as accepted, as the operator does for a spec it does not refuse. */
  static NodeCache accept(KubernetesClient client, String name) {
    NodeCache current = client.resources(NodeCache.class).withName(name).get();
    Long generation = current.getMetadata().getGeneration();
    current.setStatus(new NodeCacheStatus(generation, generation, AcceptedPaths.of(current.getSpec()),
        CachePhase.Pending, null, null, null, null, null,
        null, null, null, null));
    return client.resource(current).updateStatus();
  }
}
