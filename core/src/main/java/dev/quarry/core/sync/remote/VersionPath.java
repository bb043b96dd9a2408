package dev.quarry.core.sync.remote;

import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A path inside a version, found by reading only the manifests of the folders on the way: a path at depth d costs d
 * manifest GETs (d + 1 for a folder, whose own manifest is read too), whatever the version's size. Every folder's
 * manifest must hold the files and bytes its parent declares for it, as in a pull.
 *
 * @param path the path as normalized: components joined by '/', "" for the root
 * @param entry the path's entry in its parent's manifest; null for the root
 * @param manifest the folder's manifest when the path is a folder, else null
 * @param manifestsRead manifests fetched to find it (the root's not counted)
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
  public static VersionPath find(CasRemote remote, Manifest root, String version, String path) throws IOException {
    List<String> components = components(path);
    Manifest folder = root;
    TreeEntry entry = null;
    int read = 0;
    StringBuilder walked = new StringBuilder();
    for (int i = 0; i < components.size(); i++) {
      String name = components.get(i);
      if (folder == null) {
        throw new IllegalArgumentException("Cannot find " + TreeEntry.printable(path) + " in " + version + ": "
            + TreeEntry.printable(walked.toString()) + " is a " + kind(entry) + ", not a folder");
      }
      entry = lookup(folder, name);
      walked.append(walked.isEmpty() ? "" : "/").append(name);
      if (entry == null) {
        throw new MissingObjectException("Cannot find " + TreeEntry.printable(path) + " in " + version + ": "
            + TreeEntry.printable(walked.toString()) + " does not exist there");
      }
      folder = null;
      if (entry.isDirectory()) {
        folder = remote.fetchManifest(entry.digest());
        read++;
        requireAsDeclared(version, walked.toString(), entry, folder);
      }
    }
    return new VersionPath(String.join("/", components), entry, folder, read);
  }

  /** Refuses a folder's manifest that holds other totals than its parent's entry declares. */
  static void requireAsDeclared(String version, String path, TreeEntry entry, Manifest manifest) {
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

  /** The entry of this name in a folder's manifest, or null. */
  private static TreeEntry lookup(Manifest folder, String name) {
    for (TreeEntry entry : folder.entries()) {
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
