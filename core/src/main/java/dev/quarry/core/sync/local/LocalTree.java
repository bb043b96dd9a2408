package dev.quarry.core.sync.local;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Set;
import java.util.List;
import java.util.Map;

/**
 * A folder as a Merkle tree: every manifest by digest, and (when asked) a local file for every file digest, to
 * upload from.
 *
 * @param hashedFiles files read and hashed in this scan (the rest came from the state database)
 * @param hashedBytes their bytes
 * @param warnings entries left out, such as sockets and devices
 */
public record LocalTree(LocalDirectory top, Map<Digest, Manifest> manifests, long hashedFiles, long hashedBytes,
    List<String> warnings) {
  public LocalTree {
    manifests = java.util.Collections.unmodifiableMap(manifests);
    warnings = List.copyOf(warnings);
  }

  /**
   * A local file for each file digest of the folders whose manifest is one of {@code trees} (those a push uploads:
   * a folder the remote has is complete there, so none of its files is missing), found by a walk of those folders
   * only: a scan that found a folder as recorded never builds its manifest's entries unless asked.
   */
  public Map<Digest, Path> fileSources(Set<Digest> trees) {
    Map<Digest, Path> sources = new HashMap<>();
    addSources(top, trees, sources);
    return sources;
  }

  private static void addSources(LocalDirectory folder, Set<Digest> trees, Map<Digest, Path> sources) {
    if (!trees.contains(folder.manifest().digest())) {
      return;
    }
    for (TreeEntry entry : folder.manifest().entries()) {
      if (entry.isFile()) {
        sources.putIfAbsent(entry.digest(), folder.path().resolve(entry.name()));
      } else if (entry.isDirectory()) {
        addSources(folder.subdirectories().get(entry.name()), trees, sources);
      }
    }
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
