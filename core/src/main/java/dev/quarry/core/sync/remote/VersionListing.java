package dev.quarry.core.sync.remote;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.cas.TreeObject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The entries of a path of a version, read without pulling: the manifests on the way ({@link VersionPath}), the
 * folder's own, and with {@code recursive} the manifests of its subtree, a level at a time; never any blob. A
 * recursive listing is bounded by the files its folder declares, checked against what the JVM can hold first.
 */
public final class VersionListing {
  /** What memory a listed path costs, about. */
  private static final long BYTES_PER_ENTRY = 512;

  /**
   * One listed path. {@code digest}: {@code sha256:<hex>} of the content (a folder's manifest), null for a link;
   * {@code size}: the bytes of a file or of a folder's subtree; {@code files}: 1, or a folder's subtree's count.
   */
  public record Item(String path, String type, String mode, long size, long files, String digest, String target) {
    static Item of(String path, TreeEntry entry) {
      return new Item(path, entry.type().token(), String.format("%04o", entry.mode()), entry.bytes(), entry.files(),
          entry.digest() != null ? entry.digest().text() : null, entry.target());
    }
  }

  public record Result(List<Item> items, long manifestsRead) {}

  private VersionListing() {}

  public static Result list(CasRemote remote, TreeObject root, String version, String path, boolean recursive)
      throws IOException {
    VersionPath found = VersionPath.find(remote, root, version, path);
    if (!found.isFolder()) {
      return new Result(List.of(Item.of(found.path(), found.entry())), found.manifestsRead());
    }
    long maxItems = Runtime.getRuntime().maxMemory() / BYTES_PER_ENTRY;
    long declared = recursive ? found.folder().files()
        : found.folder().isIndex() ? found.folder().index().entries() : found.folder().leaf().entries().size();
    if (declared > maxItems) {
      throw new IllegalArgumentException("Cannot list " + TreeEntry.printable(path) + " in " + version + ": it"
          + " declares " + declared + " files, more than this JVM can hold (at most " + maxItems + "; list a folder"
          + " of it, or give the JVM more memory)");
    }
    List<Item> items = new ArrayList<>();
    Manifest whole = remote.manifestOf(found.folder());
    long read = found.manifestsRead() + whole.objects().size() - 1;
    List<Map.Entry<String, Manifest>> level = List.of(Map.entry(found.path(), whole));
    while (!level.isEmpty()) {
      List<Map.Entry<String, TreeEntry>> folders = new ArrayList<>();
      for (Map.Entry<String, Manifest> folder : level) {
        for (TreeEntry entry : folder.getValue().entries()) {
          String child = TreeEntry.childPath(folder.getKey(), entry.name());
          items.add(Item.of(child, entry));
          if (items.size() > maxItems) {
            throw new IllegalArgumentException("Cannot list " + TreeEntry.printable(path) + " in " + version
                + ": it holds more paths than this JVM can hold (at most " + maxItems + ")");
          }
          if (recursive && entry.isDirectory()) {
            folders.add(Map.entry(child, entry));
          }
        }
      }
      Map<Digest, Manifest> fetched =
          remote.fetchManifests(folders.stream().map(folder -> folder.getValue().digest()).toList());
      read += fetched.values().stream().mapToLong(manifest -> manifest.objects().size()).sum();
      List<Map.Entry<String, Manifest>> next = new ArrayList<>();
      for (Map.Entry<String, TreeEntry> folder : folders) {
        Manifest manifest = fetched.get(folder.getValue().digest());
        VersionPath.requireAsDeclared(version, folder.getKey(), folder.getValue(), manifest.top());
        next.add(Map.entry(folder.getKey(), manifest));
      }
      level = next;
    }
    items.sort(Comparator.comparing(Item::path));
    return new Result(items, read);
  }
}
