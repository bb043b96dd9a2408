package dev.quarry.core.cache.agent;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What one node's agent is asked to do: the images, where they go, and the policy.
 *
 * @param owner the NodeCache these settings belong to: its copies and records live in {@code
 *     <cacheDirectory>/<owner>}, and its agent touches nothing else
 * @param ownerUid the NodeCache's UID: a NodeCache deleted and created again under the same name is another owner,
 *     which does not adopt the earlier one's copies and mounts
 * @param roots the folders of the node the admin allows: every path above is resolved inside them, links never
 *     followed
 * @param copyBytesPerSecond cap of each copy into the cache; zero for none
 */
public record AgentSettings(
    String owner, String ownerUid, List<ImageSpec> images, Path mountRoot, Path cacheDirectory, NodeRoots roots,
    CacheCapacity capacity, Duration window, int hysteresisPercent, long copyBytesPerSecond) {
  public AgentSettings {
    images = List.copyOf(images);
  }
}
