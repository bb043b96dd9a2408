package dev.quarry.core.cache.agent;

import dev.quarry.core.fs.RootedPaths;
import java.nio.file.Path;
import java.util.List;

/**
 * The folders of the node the cluster admin lets NodeCaches use, each kind walked by its own {@link RootedPaths}:
 * mount roots, cache directories, and the folders path sources are read from.
 */
public record NodeRoots(RootedPaths mounts, RootedPaths caches, RootedPaths sources) {
  public static NodeRoots of(List<Path> mountRoots, List<Path> cacheRoots, List<Path> sourceRoots) {
    return new NodeRoots(new RootedPaths(mountRoots), new RootedPaths(cacheRoots), new RootedPaths(sourceRoots));
  }
}
