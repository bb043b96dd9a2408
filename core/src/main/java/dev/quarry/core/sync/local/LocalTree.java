package dev.quarry.core.sync.local;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A folder as a Merkle tree: every manifest by digest, and a local file for every file digest (to upload from).
 *
 * @param hashedFiles files read and hashed in this scan (the rest came from the state database)
 * @param hashedBytes their bytes
 * @param warnings entries left out, such as sockets and devices
 */
public record LocalTree(LocalDirectory top, Map<Digest, Manifest> manifests, Map<Digest, Path> fileSources,
    long hashedFiles, long hashedBytes, List<String> warnings) {
  public LocalTree {
    manifests = java.util.Collections.unmodifiableMap(manifests);
    fileSources = java.util.Collections.unmodifiableMap(fileSources);
    warnings = List.copyOf(warnings);
  }

  public Digest root() {
    return top.manifest().digest();
  }

  public long files() {
    return top.manifest().files();
  }

  public long bytes() {
    return top.manifest().bytes();
  }
}
