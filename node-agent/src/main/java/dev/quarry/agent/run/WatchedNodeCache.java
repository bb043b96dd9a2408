package dev.quarry.agent.run;

import dev.quarry.api.nodecache.NodeCache;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The agent's view of its NodeCache: as the API server has it now ({@link #live}, whose deletion is acted on) and
 * the newest version whose spec the operator accepted ({@link #accepted}). A NodeCache deleted and created again
 * under the same name (a new UID) is another NodeCache: the earlier one's accepted spec is never used for it.
 */
final class WatchedNodeCache {
  private final AtomicReference<NodeCache> live = new AtomicReference<>();
  private final AtomicReference<NodeCache> accepted = new AtomicReference<>();

  /** A version of the NodeCache seen on the API server. */
  void seen(NodeCache nodeCache) {
    live.set(nodeCache);
    accepted.updateAndGet(held -> {
      if (nodeCache.specAccepted()) {
        return nodeCache;
      }
      return held != null && Objects.equals(held.getMetadata().getUid(), nodeCache.getMetadata().getUid())
          ? held : null;
    });
  }

  /** The NodeCache is gone from the API server. */
  void deleted() {
    live.set(null);
    accepted.set(null);
  }

  NodeCache live() {
    return live.get();
  }

  NodeCache accepted() {
    return accepted.get();
  }
}
