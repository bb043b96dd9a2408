package dev.quarry.core.cache.agent;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What one node's agent is asked to do: the images, where they go, and the policy.
 *
 * @param copyBytesPerSecond cap of each copy into the cache; zero for none
 */
public record AgentSettings(
    List<ImageSpec> images, Path mountRoot, Path cacheDirectory, CacheCapacity capacity, Duration window,
    int hysteresisPercent, long copyBytesPerSecond) {
  public AgentSettings {
    images = List.copyOf(images);
  }
}
