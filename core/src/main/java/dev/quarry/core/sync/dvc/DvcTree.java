package dev.quarry.core.sync.dvc;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A DVC version as Quarry manifests: its listing's files by the SHA-256 digests of their contents, in folders.
 * Files get mode 0644 and folders 0755 (DVC keeps no modes).
 *
 * @param levels the manifests by depth, the root's first
 */
public record DvcTree(Manifest root, List<List<Manifest>> levels) {
  private static final int FILE_MODE = 0644;
  private static final int FOLDER_MODE = 0755;

  /** {@code digests}: the SHA-256 digest of each md5 the entries name. */
  public static DvcTree of(List<DirListing.Entry> entries, Map<String, Digest> digests) {
    List<List<Manifest>> levels = new ArrayList<>();
    Manifest root = build(nest(entries), digests, 0, levels);
    return new DvcTree(root, levels);
  }

  /** Every manifest by its digest. */
  public Map<Digest, Manifest> byDigest() {
    Map<Digest, Manifest> all = new HashMap<>();
    levels.forEach(level -> level.forEach(manifest -> all.put(manifest.digest(), manifest)));
    return all;
  }

  /** The listing as nested folders: a name maps to a nested map (a folder) or to the md5 of a file. */
  private static Map<String, Object> nest(List<DirListing.Entry> entries) {
    Map<String, Object> root = new TreeMap<>();
    for (DirListing.Entry entry : entries) {
      String[] components = entry.relpath().split("/");
      Map<String, Object> folder = root;
      for (int i = 0; i < components.length - 1; i++) {
        @SuppressWarnings("unchecked")
        Map<String, Object> next = (Map<String, Object>) folder.computeIfAbsent(components[i], k -> new TreeMap<>());
        folder = next;
      }
      folder.put(components[components.length - 1], entry.md5());
    }
    return root;
  }

  /** A folder's manifest, its subfolders' first; each manifest is added to the list of its depth. */
  private static Manifest build(Map<String, Object> folder, Map<String, Digest> digests, int depth,
      List<List<Manifest>> levels) {
    List<TreeEntry> entries = new ArrayList<>();
    for (Map.Entry<String, Object> child : folder.entrySet()) {
      if (child.getValue() instanceof String md5) {
        entries.add(TreeEntry.file(child.getKey(), FILE_MODE, digests.get(md5)));
      } else {
        @SuppressWarnings("unchecked")
        Manifest sub = build((Map<String, Object>) child.getValue(), digests, depth + 1, levels);
        entries.add(TreeEntry.directory(child.getKey(), FOLDER_MODE, sub.digest(), sub.files(), sub.bytes()));
      }
    }
    Manifest manifest = Manifest.of(entries);
    while (levels.size() <= depth) {
      levels.add(new ArrayList<>());
    }
    levels.get(depth).add(manifest);
    return manifest;
  }
}
