package dev.quarry.api.nodecache;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The folders of each node a NodeCache may use, as the cluster admin sets them in the chart (values
 * {@code nodeCache.mountRoots}, {@code cacheRoots} and {@code sourceRoots}): its mount root, its cache directory and
 * the path sources of its images must each lie under one of them. The schema already refuses paths that are not
 * normalized, so "under" is a plain comparison of segments. The chart's admission policy, the operator and the agent
 * all apply this rule; the agent then walks each path from its root without following links. No root may lie
 * inside another (of any kind): a mount root inside a source root would let images the agent mounts be read as
 * sources, and the agent's DaemonSet mounts each root apart.
 */
public record HostPathRoots(List<String> mountRoots, List<String> cacheRoots, List<String> sourceRoots) {
  public static final String MOUNT_ROOTS_VARIABLE = "QUARRY_NODECACHE_MOUNT_ROOTS";
  public static final String CACHE_ROOTS_VARIABLE = "QUARRY_NODECACHE_CACHE_ROOTS";
  public static final String SOURCE_ROOTS_VARIABLE = "QUARRY_NODECACHE_SOURCE_ROOTS";
  /** The chart's defaults. */
  public static final HostPathRoots DEFAULTS = new HostPathRoots(List.of("/mnt/quarry"), List.of("/var/lib/quarry"),
      List.of("/mnt/nfs"));

  public HostPathRoots {
    mountRoots = checked(MOUNT_ROOTS_VARIABLE, mountRoots);
    cacheRoots = checked(CACHE_ROOTS_VARIABLE, cacheRoots);
    sourceRoots = checked(SOURCE_ROOTS_VARIABLE, sourceRoots);
    requireApart(mountRoots, cacheRoots, sourceRoots);
  }

  /** The roots from the environment (the chart sets each as folders separated by commas); the defaults for unset. */
  public static HostPathRoots fromEnvironment(Map<String, String> env) {
    return new HostPathRoots(list(env, MOUNT_ROOTS_VARIABLE, DEFAULTS.mountRoots),
        list(env, CACHE_ROOTS_VARIABLE, DEFAULTS.cacheRoots), list(env, SOURCE_ROOTS_VARIABLE, DEFAULTS.sourceRoots));
  }

  /** The variables {@link #fromEnvironment} reads, with these roots. */
  public Map<String, String> toEnvironment() {
    return Map.of(MOUNT_ROOTS_VARIABLE, String.join(",", mountRoots), CACHE_ROOTS_VARIABLE,
        String.join(",", cacheRoots), SOURCE_ROOTS_VARIABLE, String.join(",", sourceRoots));
  }

  /** What of {@code spec} lies outside the roots, one message per path; empty when all is inside. */
  public List<String> refusals(NodeCacheSpec spec) {
    List<String> refusals = new ArrayList<>();
    check(refusals, "spec.mountRoot", NodeCachePaths.mountRoot(spec), mountRoots, "nodeCache.mountRoots");
    check(refusals, "spec.cache.directory", NodeCachePaths.cacheDirectory(spec), cacheRoots, "nodeCache.cacheRoots");
    for (CacheImage image : spec.images()) {
      if (image.source().startsWith("/")) {
        check(refusals, "spec.images[" + image.name() + "].source", image.source(), sourceRoots,
            "nodeCache.sourceRoots");
      }
    }
    return refusals;
  }

  /** Whether {@code path} is one of {@code roots} or inside one. */
  public static boolean isUnder(String path, List<String> roots) {
    return roots.stream().anyMatch(root -> Path.of(path).normalize().startsWith(Path.of(root)));
  }

  private static void check(List<String> refusals, String field, String path, List<String> roots, String value) {
    if (!isUnder(path, roots)) {
      refusals.add("Invalid " + field + ": " + path + " (must be under " + String.join(" or ", roots)
          + ", the roots the cluster admin allows in the chart value " + value + ")");
    }
  }

  private static List<String> list(Map<String, String> env, String name, List<String> fallback) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    return Arrays.stream(value.split(",")).map(String::strip).filter(root -> !root.isEmpty()).toList();
  }

  private static void requireApart(List<String> mountRoots, List<String> cacheRoots, List<String> sourceRoots) {
    List<String> all = new ArrayList<>(mountRoots);
    all.addAll(cacheRoots);
    all.addAll(sourceRoots);
    for (int i = 0; i < all.size(); i++) {
      for (int j = 0; j < all.size(); j++) {
        if (i != j && Path.of(all.get(j)).startsWith(Path.of(all.get(i)))) {
          throw new IllegalArgumentException("Invalid NodeCache roots: " + all.get(i) + " and " + all.get(j)
              + " (must be apart: no mount, cache or source root inside another; set nodeCache.mountRoots,"
              + " cacheRoots and sourceRoots in the chart)");
        }
      }
    }
  }

  /**
   * {@code roots} when each is a normalized absolute path other than /.
   *
   * @param name what sets them (a variable or a flag), named in the message
   * @throws IllegalArgumentException "Invalid NAME: ROOT (must be ...)"
   */
  public static List<String> checked(String name, List<String> roots) {
    for (String root : roots) {
      if (!root.startsWith("/") || !Path.of(root).normalize().toString().equals(root) || root.equals("/")) {
        throw new IllegalArgumentException("Invalid " + name + ": " + root + " (must be normalized absolute paths"
            + " other than /, separated by commas)");
      }
    }
    return List.copyOf(roots);
  }
}
