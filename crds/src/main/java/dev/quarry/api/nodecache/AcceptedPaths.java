package dev.quarry.api.nodecache;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/**
 * The host paths of the spec the operator last accepted: what the NodeCache's agents use while a newer spec is
 * pending or refused, and so what it holds against other NodeCaches beside its current spec.
 */
public record AcceptedPaths(
    @JsonPropertyDescription("The accepted spec.mountRoot.") String mountRoot,
    @JsonPropertyDescription("The accepted spec.cache.directory.") String cacheDirectory,
    @JsonPropertyDescription("The names of the accepted spec's images (their mount points).") List<String> images) {
  public static AcceptedPaths of(NodeCacheSpec spec) {
    return new AcceptedPaths(NodeCachePaths.mountRoot(spec), NodeCachePaths.cacheDirectory(spec),
        spec.images().stream().map(CacheImage::name).toList());
  }
}
