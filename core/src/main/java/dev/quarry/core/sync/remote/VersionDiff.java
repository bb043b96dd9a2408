package dev.quarry.core.sync.remote;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.EntryType;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.local.LocalDirectory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Compares a remote version with the local folder by walking both trees together, fetching a remote manifest only
 * where the two differ: one changed file costs one GET per folder on its path. What it reads is complete on the
 * remote by the push order, so every digest it sees is trusted present.
 */
public final class VersionDiff {
  private final Set<Digest> trustedTrees = new HashSet<>();
  private final Set<Digest> trustedBlobs = new HashSet<>();
  private long missingLocalFiles;
  private long missingLocalBytes;
  private long manifestsRead;

  private record Pair(Manifest remote, LocalDirectory local) {}

  private VersionDiff() {}

  /** Walks {@code remoteRoot} against {@code local}; {@code local} null means nothing is local. */
  public static VersionDiff compare(CasRemote remote, Manifest remoteRoot, LocalDirectory local) throws IOException {
    VersionDiff diff = new VersionDiff();
    diff.trustedTrees.add(remoteRoot.digest());
    List<Pair> level = List.of(new Pair(remoteRoot, local));
    while (!level.isEmpty()) {
      List<Map.Entry<Digest, LocalDirectory>> toFetch = new ArrayList<>();
      for (Pair pair : level) {
        diff.compareFolder(pair, toFetch);
      }
      Map<Digest, Manifest> fetched = remote.fetchManifests(toFetch.stream().map(Map.Entry::getKey).toList());
      diff.manifestsRead += fetched.size();
      level = toFetch.stream().map(entry -> new Pair(fetched.get(entry.getKey()), entry.getValue())).toList();
    }
    return diff;
  }

  private void compareFolder(Pair pair, List<Map.Entry<Digest, LocalDirectory>> toFetch) {
    Map<String, TreeEntry> localEntries = new HashMap<>();
    if (pair.local() != null) {
      pair.local().manifest().entries().forEach(entry -> localEntries.put(entry.name(), entry));
    }
    for (TreeEntry entry : pair.remote().entries()) {
      TreeEntry mine = localEntries.get(entry.name());
      switch (entry.type()) {
        case FILE -> {
          trustedBlobs.add(entry.digest());
          if (mine == null || mine.type() != EntryType.FILE || !mine.digest().equals(entry.digest())) {
            missing(1, entry.bytes());
          }
        }
        case SYMLINK -> {
          if (mine == null || mine.type() != EntryType.SYMLINK || !Objects.equals(mine.target(), entry.target())) {
            missing(1, 0);
          }
        }
        case DIRECTORY -> {
          trustedTrees.add(entry.digest());
          if (mine != null && mine.isDirectory() && mine.digest().equals(entry.digest())) {
            continue;
          }
          if (mine != null && mine.isDirectory()) {
            toFetch.add(Map.entry(entry.digest(), pair.local().subdirectories().get(entry.name())));
          } else {
            missing(entry.files(), entry.bytes());
          }
        }
      }
    }
  }

  private void missing(long files, long bytes) {
    missingLocalFiles += files;
    missingLocalBytes += bytes;
  }

  /** Manifests of the remote version seen: each is complete on the remote. */
  public Set<Digest> trustedTrees() {
    return Collections.unmodifiableSet(trustedTrees);
  }

  /** File blobs named by the manifests read: each is present on the remote. */
  public Set<Digest> trustedBlobs() {
    return Collections.unmodifiableSet(trustedBlobs);
  }

  /** Files (and links) of the remote version whose content is not at their path locally. */
  public long missingLocalFiles() {
    return missingLocalFiles;
  }

  public long missingLocalBytes() {
    return missingLocalBytes;
  }

  public long manifestsRead() {
    return manifestsRead;
  }
}
