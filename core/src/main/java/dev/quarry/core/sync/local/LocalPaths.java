package dev.quarry.core.sync.local;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.TreeEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Paths of a scanned folder, '/'-separated from its top, for what status names. */
public final class LocalPaths {
  private LocalPaths() {}

  /**
   * Appends the path of every file and link in {@code folder} and below, each after {@code prefix} (the folder's own
   * path with a trailing '/'); an empty folder is its own path.
   */
  public static void list(LocalDirectory folder, String prefix, List<String> into) {
    if (folder.manifest().entries().isEmpty()) {
      into.add(prefix);
      return;
    }
    for (TreeEntry entry : folder.manifest().entries()) {
      if (entry.isDirectory()) {
        list(folder.subdirectories().get(entry.name()), prefix + entry.name() + "/", into);
      } else {
        into.add(prefix + entry.name());
      }
    }
  }

  /**
   * The paths of the files whose content is one of {@code blobs}, looking only into the folders whose manifest is one
   * of {@code trees}: a folder whose manifest the remote has is complete there, so none of its files can be missing.
   */
  public static List<String> withContent(LocalDirectory top, Set<Digest> trees, Set<Digest> blobs) {
    List<String> paths = new ArrayList<>();
    if (!blobs.isEmpty()) {
      withContent(top, "", trees, blobs, paths);
    }
    return paths;
  }

  private static void withContent(LocalDirectory folder, String prefix, Set<Digest> trees, Set<Digest> blobs,
      List<String> into) {
    if (!trees.contains(folder.manifest().digest())) {
      return;
    }
    for (TreeEntry entry : folder.manifest().entries()) {
      if (entry.isDirectory()) {
        withContent(folder.subdirectories().get(entry.name()), prefix + entry.name() + "/", trees, blobs, into);
      } else if (entry.isFile() && blobs.contains(entry.digest())) {
        into.add(prefix + entry.name());
      }
    }
  }
}
