package dev.quarry.api.nodecache;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The host paths a NodeCache uses on each node, with the defaults the schema declares: its mount root (which other
 * NodeCaches may share), and the paths it alone may hold, the mount point of each image and its own folder in the
 * cache directory. Two NodeCaches overlap when one's own paths meet the other's paths, or their mount roots nest.
 */
public final class NodeCachePaths {
  public static final String DEFAULT_MOUNT_ROOT = "/mnt/quarry";
  public static final String DEFAULT_CACHE_DIRECTORY = "/var/lib/quarry/cache";

  private NodeCachePaths() {}

  public static String mountRoot(NodeCacheSpec spec) {
    return spec.mountRoot() == null ? DEFAULT_MOUNT_ROOT : spec.mountRoot();
  }

  public static String cacheDirectory(NodeCacheSpec spec) {
    return spec.cache() == null || spec.cache().directory() == null ? DEFAULT_CACHE_DIRECTORY
        : spec.cache().directory();
  }

  /**
   * Why {@code cache} may not use its paths because {@code owner} (created before it) holds them, or null when
   * they do not overlap.
   */
  public static String conflict(NodeCache cache, NodeCache owner) {
    String ownerName = owner.getMetadata().getName();
    Path root = Path.of(mountRoot(cache.getSpec()));
    Path ownerRoot = Path.of(mountRoot(owner.getSpec()));
    if (!root.equals(ownerRoot) && (root.startsWith(ownerRoot) || ownerRoot.startsWith(root))) {
      return "Cannot use spec.mountRoot " + root + ": NodeCache " + ownerName + " mounts its images under " + ownerRoot
          + ", and mount roots must be the same or apart; set another spec.mountRoot";
    }
    List<Path> mine = ownPaths(cache);
    List<Path> theirs = ownPaths(owner);
    for (Path other : theirs) {
      if (root.startsWith(other) && !root.equals(other)) {
        return "Cannot use spec.mountRoot " + root + ": it lies in " + other + ", which NodeCache " + ownerName
            + " owns";
      }
    }
    for (Path path : mine) {
      for (Path other : theirs) {
        if (path.startsWith(other) || other.startsWith(path)) {
          return "Cannot use " + path + ": NodeCache " + ownerName + " owns " + other + "; rename the image or set"
              + " another spec.mountRoot or spec.cache.directory";
        }
      }
      if (ownerRoot.startsWith(path)) {
        return "Cannot use " + path + ": NodeCache " + ownerName + " mounts its images under " + ownerRoot;
      }
    }
    return null;
  }

  /** The mount point of each image, and the NodeCache's folder in its cache directory. */
  static List<Path> ownPaths(NodeCache cache) {
    List<Path> paths = new ArrayList<>();
    Path root = Path.of(mountRoot(cache.getSpec()));
    for (CacheImage image : cache.getSpec().images()) {
      paths.add(root.resolve(image.name()));
    }
    paths.add(Path.of(cacheDirectory(cache.getSpec())).resolve(cache.getMetadata().getName()));
    return paths;
  }
}
