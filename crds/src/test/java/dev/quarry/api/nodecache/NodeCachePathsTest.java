package dev.quarry.api.nodecache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeCachePathsTest {
  private static NodeCache cache(String name, String mountRoot, String cacheDirectory, String... images) {
    NodeCache cache = new NodeCache();
    cache.setMetadata(new ObjectMetaBuilder().withName(name).build());
    cache.setSpec(new NodeCacheSpec(null, null, mountRoot, new CacheStorage(cacheDirectory, "10Gi"),
        new ArrayList<>(List.of(images).stream().map(i -> new CacheImage(i, "/mnt/nfs/" + i + ".sqfs", null, false,
            0)).toList()),
        null, null));
    return cache;
  }

  @Test
  void nodeCachesShareTheDefaultRootsWhenTheirImageNamesDiffer() {
    assertThat(NodeCachePaths.conflict(cache("b", null, null, "coco"), cache("a", null, null, "imagenet"))).isNull();
  }

  @Test
  void theSameImageNameUnderOneMountRootIsTheOwnersAlone() {
    assertThat(NodeCachePaths.conflict(cache("b", null, null, "coco", "imagenet"), cache("a", null, null,
        "imagenet"))).isEqualTo("Cannot use /mnt/quarry/imagenet: NodeCache a owns /mnt/quarry/imagenet; rename the"
        + " image or set another spec.mountRoot or spec.cache.directory");
    assertThat(NodeCachePaths.conflict(cache("b", "/mnt/quarry/other", null, "imagenet"), cache("a", null, null,
        "imagenet"))).startsWith("Cannot use spec.mountRoot /mnt/quarry/other: NodeCache a mounts its images under"
        + " /mnt/quarry");
  }

  @Test
  void aMountRootInsideAnotherNodeCachesCacheFolderOverlaps() {
    assertThat(NodeCachePaths.conflict(cache("b", "/var/lib/quarry/cache/a/x", null, "coco"),
        cache("a", null, null, "imagenet"))).isEqualTo("Cannot use spec.mountRoot /var/lib/quarry/cache/a/x: it lies"
        + " in /var/lib/quarry/cache/a, which NodeCache a owns");
  }

  @Test
  void pathsOutsideTheAdminRootsAreRefusedOnePerField() {
    NodeCache cache = cache("a", "/etc", "/root/cache", "imagenet");
    cache.getSpec().images().set(0, new CacheImage("imagenet", "/etc/shadow", null, false, 0));
    assertThat(HostPathRoots.DEFAULTS.refusals(cache.getSpec())).containsExactly(
        "Invalid spec.mountRoot: /etc (must be under /mnt/quarry, the roots the cluster admin allows in the chart"
            + " value nodeCache.mountRoots)",
        "Invalid spec.cache.directory: /root/cache (must be under /var/lib/quarry, the roots the cluster admin"
            + " allows in the chart value nodeCache.cacheRoots)",
        "Invalid spec.images[imagenet].source: /etc/shadow (must be under /mnt/nfs, the roots the cluster admin allows"
            + " in the chart value nodeCache.sourceRoots)");
    assertThat(HostPathRoots.DEFAULTS.refusals(cache("a", "/mnt/quarry", "/var/lib/quarry/cache", "x").getSpec()))
        .isEmpty();
    assertThat(HostPathRoots.DEFAULTS.refusals(cache("a", "/mnt/quarryx", null, "x").getSpec())).hasSize(1);
  }

  @Test
  void rootsComeFromTheEnvironmentAndMustBeNormalized() {
    HostPathRoots roots = HostPathRoots.fromEnvironment(Map.of(HostPathRoots.MOUNT_ROOTS_VARIABLE, "/a, /b"));
    assertThat(roots.mountRoots()).containsExactly("/a", "/b");
    assertThat(roots.cacheRoots()).isEqualTo(HostPathRoots.DEFAULTS.cacheRoots());
    assertThat(HostPathRoots.fromEnvironment(roots.toEnvironment())).isEqualTo(roots);
    assertThatThrownBy(() -> HostPathRoots.fromEnvironment(Map.of(HostPathRoots.SOURCE_ROOTS_VARIABLE, "/mnt/../")))
        .hasMessage("Invalid QUARRY_NODECACHE_SOURCE_ROOTS: /mnt/../ (must be normalized absolute paths other than /,"
            + " separated by commas)");
  }

  @Test
  void rootsMustBeApartSoThatNoPathIsUnderTwoKinds() {
    assertThatThrownBy(() -> new HostPathRoots(List.of("/mnt/quarry"), List.of("/var/lib/quarry"), List.of("/mnt")))
        .hasMessage("Invalid NodeCache roots: /mnt and /mnt/quarry (must be apart: no mount, cache or source root"
            + " inside another; set nodeCache.mountRoots, cacheRoots and sourceRoots in the chart)");
    assertThatThrownBy(() -> new HostPathRoots(List.of("/data"), List.of("/data"), List.of("/nfs")))
        .hasMessageStartingWith("Invalid NodeCache roots: /data and /data (must be apart");
    assertThatThrownBy(() -> HostPathRoots.fromEnvironment(Map.of(HostPathRoots.MOUNT_ROOTS_VARIABLE,
        "/mnt/nfs/quarry"))).as("against the default source root").hasMessageStartingWith(
            "Invalid NodeCache roots: /mnt/nfs and /mnt/nfs/quarry");
    assertThat(new HostPathRoots(List.of("/mnt/quarry"), List.of("/var/lib/quarry"), List.of("/mnt/quarryx")))
        .as("a shared prefix of characters is not nesting").isNotNull();
    assertThat(HostPathRoots.DEFAULTS.sourceRoots()).containsExactly("/mnt/nfs");
  }
}
