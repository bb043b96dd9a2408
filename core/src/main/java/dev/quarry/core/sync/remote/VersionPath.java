package dev.quarry.core.sync.remote;

import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.cas.ChunkIndex;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.cas.TreeObject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A path inside a version, found by reading only the manifests of the folders on the way: a path at depth d costs d
 * manifest GETs, whatever the version's size, plus, in a chunked folder, one per index level to the one chunk whose
 * range holds the name (and a folder's whole manifest when the path is a folder). Every folder's manifest must hold
 * the files and bytes its parent declares for it, as in a pull, and every chunk what its index declares.
 *
 * @param path the path as normalized: components joined by '/', "" for the root
 * @param entry the path's entry in its parent's manifest; null for the root
 * @param folder the top object of the folder's manifest when the path is a folder (for a chunked folder, its index;
 *     {@link CasRemote#manifestOf} reads the rest), else null
 * @param manifestsRead manifests, chunks and indexes fetched to find it (the root's top not counted)
 */
public record VersionPath(String path, TreeEntry entry, TreeObject folder, int manifestsRead) {
  public boolean isFolder() {
    return folder != null;
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
    return new VersionPath(String.join("/", components), entry, folder, read[0]);
  }

  /** Entries of a folder found by name, and the chunks and indexes read to find them. */
  public record Named(List<TreeEntry> entries, int read) {}

  /**
   * The whole folder whose top object this is: reads a chunked folder's chunks a level at a time, once the sizes
   * their digests declare fit in memory.
   */
  public static Manifest whole(DifferentChunks.Objects trees, TreeObject top) throws IOException {
    if (!top.isIndex()) {
      return top.leaf();
    }
    Map<Digest, TreeObject> parts = new HashMap<>();
    List<Digest> level = top.index().chunks().stream().map(ChunkIndex.Chunk::digest).toList();
    for (int height = top.index().height(); height >= 1 && !level.isEmpty(); height--) {
      requireFitsInMemory(top, level);
      Map<Digest, TreeObject> fetched = trees.fetch(level);
      parts.putAll(fetched);
      level = height == 1 ? List.of() : fetched.values().stream().filter(TreeObject::isIndex)
          .flatMap(index -> index.index().chunks().stream().map(ChunkIndex.Chunk::digest)).toList();
    }
    return Manifest.assemble(top.index(), parts);
  }

  /**
   * The entries of the wanted names in a folder (those it has), reading in a chunked folder only the chunks whose
   * ranges can hold them ({@link ChildNames#byChunk}), a level at a time once the sizes their digests declare fit in
   * memory, each chunk once and checked against its index.
   */
  public static Named named(DifferentChunks.Objects trees, TreeObject folder, ChildNames names) throws IOException {
    record Node(TreeObject object, String end, ChildNames names) {}
    record Part(Node parent, int place, ChildNames names) {}
    List<Node> level = List.of(new Node(folder, null, names));
    List<TreeEntry> found = new ArrayList<>();
    int read = 0;
    while (!level.isEmpty()) {
      List<Part> parts = new ArrayList<>();
      for (Node node : level) {
        if (node.object().isIndex()) {
          node.names().byChunk(node.object().index())
              .forEach((place, wanted) -> parts.add(new Part(node, place, wanted)));
        } else {
          node.object().leaf().entries().stream().filter(entry -> node.names().holds(entry.name()))
              .forEach(found::add);
        }
      }
      List<Digest> digests = parts.stream()
          .map(part -> part.parent().object().index().chunks().get(part.place()).digest()).distinct().toList();
      requireFitsInMemory(folder, digests);
      Map<Digest, TreeObject> fetched = trees.fetch(digests);
      read += fetched.size();
      List<Node> next = new ArrayList<>();
      for (Part part : parts) {
        ChunkIndex index = part.parent().object().index();
        TreeObject object = fetched.get(index.chunks().get(part.place()).digest());
        String end = index.endOf(part.place(), part.parent().end());
        index.requireChild(part.place(), object, end);
        next.add(new Node(object, end, part.names()));
      }
      level = next;
    }
    return new Named(found, read);
  }

  /** Refuses to read chunks of a folder whose declared sizes, together, do not fit in memory. */
  private static void requireFitsInMemory(TreeObject top, List<Digest> chunks) {
    long maxLevelBytes = Runtime.getRuntime().maxMemory() / 8;
    long declared = chunks.stream().mapToLong(Digest::size).reduce(0, (a, b) -> a + b < a ? Long.MAX_VALUE : a + b);
    if (declared > maxLevelBytes) {
      throw new IllegalArgumentException("Cannot read folder " + top.digest().text() + ": its chunks declare "
          + declared + " bytes, more than this JVM can read at once (at most " + maxLevelBytes + ")");
    }
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

  /** The entry of this name in a folder, or null ({@link #named}); {@code read[0]} counts the objects read. */
  private static TreeEntry lookup(CasRemote remote, TreeObject folder, String name, int[] read) throws IOException {
    Named found = named(remote::fetchObjects, folder, ChildNames.exactly(Set.of(name)));
    read[0] += found.read();
    return found.entries().isEmpty() ? null : found.entries().getFirst();
  }

  private static String kind(TreeEntry entry) {
    return entry.isSymlink() ? "symbolic link" : "file";
  }
}
