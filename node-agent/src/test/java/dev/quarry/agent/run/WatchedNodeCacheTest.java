package dev.quarry.agent.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCacheStatus;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;

class WatchedNodeCacheTest {
  private static NodeCache nodeCache(String uid, long generation, Long acceptedGeneration) {
    NodeCache nodeCache = new NodeCache();
    nodeCache.setMetadata(new ObjectMetaBuilder().withName("coco").withUid(uid).withGeneration(generation).build());
    if (acceptedGeneration != null) {
      nodeCache.setStatus(new NodeCacheStatus(generation, acceptedGeneration, null, null, null, null, null, null, null,
          null, null, null, null));
    }
    return nodeCache;
  }

  @Test
  void aPendingSpecKeepsTheLastAcceptedOne() {
    WatchedNodeCache watched = new WatchedNodeCache();
    NodeCache first = nodeCache("uid-1", 1, 1L);
    watched.seen(first);
    NodeCache edited = nodeCache("uid-1", 2, 1L);
    watched.seen(edited);
    assertThat(watched.live()).isSameAs(edited);
    assertThat(watched.accepted()).isSameAs(first);
  }

  @Test
  void aNodeCacheCreatedAgainUnderTheSameNameNeverUsesTheEarlierOnesSpec() {
    WatchedNodeCache watched = new WatchedNodeCache();
    watched.seen(nodeCache("uid-1", 3, 3L));
    // The watch missed the deletion (a relist): the next version seen is the new NodeCache, not accepted yet.
    NodeCache again = nodeCache("uid-2", 1, null);
    watched.seen(again);
    assertThat(watched.live()).isSameAs(again);
    assertThat(watched.accepted()).isNull();
    NodeCache accepted = nodeCache("uid-2", 1, 1L);
    watched.seen(accepted);
    assertThat(watched.accepted()).isSameAs(accepted);
  }
}
