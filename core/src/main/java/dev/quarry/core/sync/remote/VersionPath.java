package dev.quarry.core.sync.remote;

import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.cas.ChunkIndex;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.cas.TreeObject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A path inside a version, found by reading only the manifests of the folders on the way: a path at depth d costs d
 * manifest GETs, whatever the version's size, plus, in a chunked folder, one per index level to the one chunk whose
 * range holds the name (and a folder's whole manifest when the path is a folder). Every folder's manifest must hold
 * the files and bytes its parent declares for it, as in a pull, and every chunk what its index declares.
 *
 * @param path the path as normalized: components joined by '/', "" for the root
 * @param entry the path's entry in its parent's manifest; null for the root
 * @param manifest the folder's manifest when the path is a folder, else null
 * @param manifestsRead manifests, chunks and indexes fetched to find it (the root's top not counted)
 */
public record VersionPath(String path, TreeEntry entry, Manifest manifest, int manifestsRead) {
  public boolean isFolder() {
    return manifest != null;
  }

  /** The last component of the path; "" for the root. */
  public String name() {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /** Finds {@code path} ("" or "/" for the root; leading and trailing '/' ignored) under {@code root}. */
  public static VersionPath find(CasRemote remote, TreeObject root, String version, String path)
      throws IOException {
    List<String> components = components(path);
    TreeObject folder = root;
    TreeEntry entry = null;
    int[] read = {0};
    StringBuilder walked = new StringBuilder();
    for (int i = 0; i < components.size(); i++) {
      String name = components.get(i);
      if (folder == null) {
        throw new IllegalArgumentException("Cannot find " + TreeEntry.printable(path) + " in " + version + ": "
            + TreeEntry.printable(walked.toString()) + " is a " + kind(entry) + ", not a folder");
      }
      entry = lookup(remote, folder, name, read);
      walked.append(walked.isEmpty() ? "" : "/").append(name);
      if (entry == null) {
        throw new MissingObjectException("Cannot find " + TreeEntry.printable(path) + " in " + version + ": "
            + TreeEntry.printable(walked.toString()) + " does not exist there");
      }
      folder = null;
      if (entry.isDirectory()) {
        folder = remote.fetchObject(entry.digest());
        read[0]++;
        requireAsDeclared(version, walked.toString(), entry, folder);
      }
    }
    Manifest found = null;
    if (folder != null) {
      found = remote.manifestOf(folder);
      read[0] += found.objects().size() - 1;
    }
    return new VersionPath(String.join("/", components), entry, found, read[0]);
  }

  /** Refuses a folder's manifest that holds other totals than its parent's entry declares. */
  static void requireAsDeclared(String version, String path, TreeEntry entry, TreeObject manifest) {
    if (manifest.files() != entry.files() || manifest.bytes() != entry.bytes()) {
      throw new IllegalArgumentException("Cannot read " + TreeEntry.printable(version) + ": folder "
          + TreeEntry.printable(path) + " declares " + entry.files() + " files and " + entry.bytes()
          + " bytes, but its manifest holds " + manifest.files() + " files and " + manifest.bytes() + " bytes");
    }
  }

  /** The components of a path as a user writes it; refuses ".", "..", empty and ".quarry" components. */
  static List<String> components(String path) {
    List<String> components = new ArrayList<>();
    String trimmed = path.replaceAll("^/+|/+$", "");
    if (trimmed.isEmpty()) {
      return components;
    }
    for (String component : trimmed.split("/", -1)) {
      if (component.isEmpty() || component.equals(".") || component.equals("..") || component.indexOf('\0') >= 0) {
        throw new IllegalArgumentException("Invalid path: " + TreeEntry.printable(path)
            + " (must be names joined by '/', without empty, . or .. components)");
      }
      if (component.equals(SyncSession.DEFAULT_STATE_FOLDER)) {
        throw new IllegalArgumentException("Invalid path: " + TreeEntry.printable(path) + " (" + component
            + " is a folder's state, which no version holds)");
      }
      components.add(component);
    }
    return components;
  }

  /**
   * The entry of this name in a folder, or null: in a chunked folder, read through its indexes to the one chunk whose
   * range holds the name, each checked against its index; {@code read[0]} counts the objects read.
   */
  private static TreeEntry lookup(CasRemote remote, TreeObject folder, String name, int[] read) throws IOException {
    TreeObject node = folder;
    String end = null;
    while (node.isIndex()) {
      ChunkIndex index = node.index();
      int place = index.chunkOf(name);
      if (place < 0) {
        return null;
      }
      TreeObject chunk = remote.fetchObject(index.chunks().get(place).digest());
      read[0]++;
      end = index.endOf(place, end);
      index.requireChild(place, chunk, end);
      node = chunk;
    }
    for (TreeEntry entry : node.leaf().entries()) {
      if (entry.name().equals(name)) {
        return entry;
      }
    }
    return null;
  }

  private static String kind(TreeEntry entry) {
    return entry.isSymlink() ? "symbolic link" : "file";
  }
}
