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
   * Why {@code cache} may not use its paths because {@code owner} (accepted or created before it) holds them, or null
   * when they do not overlap. The owner holds the paths of its current spec and of the spec it was last accepted with
   * ({@code status.acceptedPaths}), which its agents keep using while a newer spec is pending or refused.
   */
  public static String conflict(NodeCache cache, NodeCache owner) {
    String ownerName = owner.getMetadata().getName();
    Held mine = Held.of(cache.getMetadata().getName(), AcceptedPaths.of(cache.getSpec()));
    String conflict = mine.conflict(Held.of(ownerName, AcceptedPaths.of(owner.getSpec())), ownerName);
    AcceptedPaths accepted = owner.getStatus() == null ? null : owner.getStatus().acceptedPaths();
    if (conflict == null && accepted != null) {
      conflict = mine.conflict(Held.of(ownerName, accepted), ownerName);
    }
    return conflict;
  }

  /** A mount root, and the paths a NodeCache alone may hold: each image's mount point and its cache folder. */
  private record Held(Path root, List<Path> own) {
    static Held of(String name, AcceptedPaths paths) {
      Path root = Path.of(paths.mountRoot());
      List<Path> own = new ArrayList<>();
      for (String image : paths.images()) {
        own.add(root.resolve(image));
      }
      own.add(Path.of(paths.cacheDirectory()).resolve(name));
      return new Held(root, own);
    }

    String conflict(Held owner, String ownerName) {
      Path ownerRoot = owner.root;
      if (!root.equals(ownerRoot) && (root.startsWith(ownerRoot) || ownerRoot.startsWith(root))) {
        return "Cannot use spec.mountRoot " + root + ": NodeCache " + ownerName + " mounts its images under "
            + ownerRoot + ", and mount roots must be the same or apart; set another spec.mountRoot";
      }
      for (Path other : owner.own) {
        if (root.startsWith(other) && !root.equals(other)) {
          return "Cannot use spec.mountRoot " + root + ": it lies in " + other + ", which NodeCache " + ownerName
              + " owns";
        }
      }
      for (Path path : own) {
        for (Path other : owner.own) {
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
  }
}
