package dev.quarry.core.sync.remote;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.EntryType;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.cas.TreeObject;
import dev.quarry.core.sync.local.LocalDirectory;
import dev.quarry.core.sync.local.LocalPaths;
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
 * where the two differ: one changed file costs one GET per folder on its path (and in a chunked folder, one per
 * index on the way to the chunk that differs: {@link DifferentChunks}). What it reads is complete on the
 * remote by the push order, so every digest it sees is trusted present. On the way it names what differs: paths
 * added, modified and deleted in the folder since the version (a folder the folder lacks whole is one path ending in
 * '/', as listing its files would cost reads the comparison does not need).
 */
public final class VersionDiff {
  private final Set<Digest> trustedTrees = new HashSet<>();
  private final Set<Digest> trustedBlobs = new HashSet<>();
  private long missingLocalFiles;
  private long missingLocalBytes;
  private long manifestsRead;
  private final List<String> added = new ArrayList<>();
  private final List<String> modified = new ArrayList<>();
  private final List<String> deleted = new ArrayList<>();

  /** {@code prefix}: the folder's path from the top with a trailing '/', or "" at the top. */
  private record Pair(TreeObject remote, LocalDirectory local, String prefix) {}

  /** A folder on both sides whose remote manifest is still to be read. */
  private record Pending(Digest remote, LocalDirectory local, String prefix) {}

  private VersionDiff() {}

  /** Walks {@code remoteRoot} against {@code local}; {@code local} null means nothing is local. */
  public static VersionDiff compare(CasRemote remote, TreeObject remoteRoot, LocalDirectory local)
      throws IOException {
    VersionDiff diff = new VersionDiff();
    diff.trustedTrees.add(remoteRoot.digest());
    List<Pair> level = List.of(new Pair(remoteRoot, local, ""));
    while (!level.isEmpty()) {
      List<Pending> toFetch = new ArrayList<>();
      for (Pair pair : level) {
        diff.compareFolder(remote, pair, toFetch);
      }
      Map<Digest, TreeObject> fetched = remote.fetchObjects(toFetch.stream().map(Pending::remote).toList());
      diff.manifestsRead += fetched.size();
      level = toFetch.stream().map(next -> new Pair(fetched.get(next.remote()), next.local(), next.prefix())).toList();
    }
    return diff;
  }

  /** Compares the entries that can differ: those of the chunks one side lacks, when the folder is chunked. */
  private void compareFolder(CasRemote remote, Pair pair, List<Pending> toFetch) throws IOException {
    Manifest folder = pair.local() != null ? pair.local().manifest() : null;
    DifferentChunks differing = DifferentChunks.of(remote::fetchObjects, pair.remote(),
        folder != null ? DifferentChunks.Objects.of(folder) : null, folder != null ? folder.top() : null);
    manifestsRead += differing.read();
    trustedTrees.addAll(differing.beforeNamed());
    Map<String, TreeEntry> localEntries = new HashMap<>();
    differing.after().forEach(entry -> localEntries.put(entry.name(), entry));
    String prefix = pair.prefix();
    for (TreeEntry entry : differing.before()) {
      TreeEntry mine = localEntries.remove(entry.name());
      String path = TreeEntry.requirePathLength(prefix + entry.name());
      switch (entry.type()) {
        case FILE -> {
          trustedBlobs.add(entry.digest());
          if (mine == null || mine.type() != EntryType.FILE || !mine.digest().equals(entry.digest())) {
            missing(1, entry.bytes());
            changed(pair, mine, path);
          } else if (mine.mode() != entry.mode()) {
            modified.add(path);
          }
        }
        case SYMLINK -> {
          if (mine == null || mine.type() != EntryType.SYMLINK || !Objects.equals(mine.target(), entry.target())) {
            missing(1, 0);
            changed(pair, mine, path);
          }
        }
        case DIRECTORY -> {
          trustedTrees.add(entry.digest());
          if (mine != null && mine.isDirectory() && mine.mode() != entry.mode()) {
            modified.add(path + "/");
          }
          if (mine != null && mine.isDirectory() && mine.digest().equals(entry.digest())) {
            continue;
          }
          if (mine != null && mine.isDirectory()) {
            toFetch.add(new Pending(entry.digest(), pair.local().subdirectories().get(entry.name()), path + "/"));
          } else {
            missing(entry.files(), entry.bytes());
            deleted.add(path + "/");
            if (mine != null) {
              added(pair.local(), mine, prefix); // a file or link where the version has a folder
            }
          }
        }
      }
    }
    for (TreeEntry mine : localEntries.values()) {
      added(pair.local(), mine, prefix);
    }
  }

  /**
   * A remote file or link not at its path: modified when the folder has a file or link there, deleted otherwise (and a
   * local folder in its place added).
   */
  private void changed(Pair pair, TreeEntry mine, String path) {
    if (mine == null) {
      deleted.add(path);
    } else if (mine.isDirectory()) {
      deleted.add(path);
      added(pair.local(), mine, pair.prefix());
    } else {
      modified.add(path);
    }
  }

  /** A local entry the version lacks: its path, or for a folder the paths of everything in it. */
  private void added(LocalDirectory folder, TreeEntry mine, String prefix) {
    if (mine.isDirectory()) {
      LocalPaths.list(folder.subdirectories().get(mine.name()), prefix + mine.name() + "/", added);
    } else {
      added.add(prefix + mine.name());
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

  /** Paths in the folder the version lacks, files and links one by one. */
  public List<String> added() {
    return Collections.unmodifiableList(added);
  }

  /** Paths of files and links both have with another content, target or mode; of folders ('/') with another mode. */
  public List<String> modified() {
    return Collections.unmodifiableList(modified);
  }

  /** Paths of the version the folder lacks; a folder lacked whole ends in '/'. */
  public List<String> deleted() {
    return Collections.unmodifiableList(deleted);
  }
}
