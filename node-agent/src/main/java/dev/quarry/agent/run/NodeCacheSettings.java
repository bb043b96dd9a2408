package dev.quarry.agent.run;

import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.nodecache.CacheImage;
import dev.quarry.api.nodecache.CachePolicy;
import dev.quarry.api.nodecache.HostPathRoots;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCachePaths;
import dev.quarry.api.nodecache.NodeCacheSpec;
import dev.quarry.core.cache.agent.AgentSettings;
import dev.quarry.core.cache.agent.CacheCapacity;
import dev.quarry.core.cache.agent.ImageSpec;
import dev.quarry.core.cache.agent.NodeRoots;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.units.ByteSize;
import dev.quarry.core.units.Durations;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Reads a NodeCache's spec as the engine's settings, with the defaults the CRD declares. */
public final class NodeCacheSettings {
  private NodeCacheSettings() {}

  /** The agent's settings for {@code nodeCache}, whose paths lie under {@code roots} (checked by the caller). */
  public static AgentSettings of(NodeCache nodeCache, HostPathRoots roots) {
    NodeCacheSpec spec = nodeCache.getSpec();
    CachePolicy policy = spec.policy();
    List<ImageSpec> images = spec.images().stream().map(NodeCacheSettings::image).toList();
    return new AgentSettings(nodeCache.getMetadata().getName(), nodeCache.getMetadata().getUid(), images,
        Path.of(NodeCachePaths.mountRoot(spec)),
        Path.of(NodeCachePaths.cacheDirectory(spec)),
        nodeRoots(roots),
        CacheCapacity.parse(spec.cache().capacity()),
        duration(policy == null ? null : policy.window(), "10m"),
        policy == null || policy.hysteresisPercent() == null ? 10 : policy.hysteresisPercent(),
        policy == null || policy.copyBandwidth() == null ? 0 : ByteSize.parse(policy.copyBandwidth()));
  }

  /** The admin's roots, each kind walked without following links. */
  public static NodeRoots nodeRoots(HostPathRoots roots) {
    return NodeRoots.of(paths(roots.mountRoots()), paths(roots.cacheRoots()), paths(roots.sourceRoots()));
  }

  private static List<Path> paths(List<String> roots) {
    return roots.stream().map(Path::of).toList();
  }

  /** How often the agent runs a pass. */
  public static Duration interval(NodeCache nodeCache) {
    CachePolicy policy = nodeCache.getSpec().policy();
    return duration(policy == null ? null : policy.interval(), "30s");
  }

  /** Copies running at once across the cluster. */
  public static int maxConcurrentCopies(NodeCache nodeCache) {
    CachePolicy policy = nodeCache.getSpec().policy();
    return policy == null || policy.maxConcurrentCopies() == null ? 4 : policy.maxConcurrentCopies();
  }

  /**
   * The S3 settings for images with an s3:// source; credentials come from the environment (the Secret). A null
   * NodeCache gives the environment's settings alone.
   */
  public static S3Settings s3(NodeCache nodeCache) {
    S3Settings settings = S3Settings.fromEnvironment();
    // No NodeCache: the agent started before it exists (or after it is gone); the environment's store serves.
    ObjectStore store = nodeCache == null || nodeCache.getSpec() == null ? null : nodeCache.getSpec().store();
    if (store != null) {
      if (store.endpoint() != null) {
        settings = settings.withEndpoint(URI.create(store.endpoint()));
      }
      if (store.region() != null) {
        settings = settings.withRegion(store.region());
      }
      settings = settings.withPathStyle(store.pathStyle() == null || store.pathStyle());
    }
    return settings;
  }

  private static ImageSpec image(CacheImage image) {
    return new ImageSpec(image.name(), image.source(), image.checksum() == null ? null : hex(image.checksum()),
        Boolean.TRUE.equals(image.pinned()), image.priority() == null ? 0 : image.priority());
  }

  /** Checksums may be written {@code sha256:<hex>} or bare hex. */
  private static String hex(String checksum) {
    return checksum.startsWith("sha256:") ? checksum.substring("sha256:".length()) : checksum;
  }

  private static Duration duration(String text, String fallback) {
    return Durations.parse(text == null ? fallback : text);
  }
}
