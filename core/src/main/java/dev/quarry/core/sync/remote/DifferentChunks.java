package dev.quarry.core.sync.remote;

import dev.quarry.core.sync.cas.ChunkIndex;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.cas.TreeObject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The entries of two versions of a folder that can differ, read chunk by chunk: a chunk (or an index) with the same
 * digest on both sides holds the same entries, so it is dropped unread; indexes are opened a height at a time, the
 * taller side first, and only the chunks one side lacks are read. Since cuts depend on the names near them, one
 * changed entry leaves one chunk on each side, whatever the folder's size. Each chunk read is checked against what
 * its index declares for it, and a level of chunks is read only when the sizes their digests declare fit in an eighth
 * of the heap. Two folders of one manifest each cost nothing: their entries are returned whole.
 *
 * @param before the entries of the first side in chunks the second lacks (all of them for a side of one manifest)
 * @param after likewise for the second side
 * @param read tree objects read below the two tops
 * @param beforeNamed every tree object of the first side read or named by an index read (each present, on a remote,
 *     since a manifest or an index is written only after what it names)
 */
public record DifferentChunks(List<TreeEntry> before, List<TreeEntry> after, long read, Set<Digest> beforeNamed) {

  /** Where one side's tree objects come from: a remote, or a scanned folder. */
  @FunctionalInterface
  public interface Objects {
    Map<Digest, TreeObject> fetch(Collection<Digest> digests) throws IOException;

    /** The objects of one scanned folder: its chunks and indexes. */
    static Objects of(Manifest folder) {
      Map<Digest, TreeObject> objects = TreeObject.byDigest(List.of(folder));
      return digests -> {
        Map<Digest, TreeObject> found = new HashMap<>();
        digests.forEach(digest -> found.put(digest, java.util.Objects.requireNonNull(objects.get(digest),
            "a scanned folder lacks its own chunk")));
        return found;
      };
    }
  }

  /** A chunk on one side: its object, and the first name of what follows it (null: nothing, or not known). */
  private record Node(TreeObject object, String end) {
    Digest digest() {
      return object.digest();
    }

    int height() {
      return object.isIndex() ? object.index().height() : 0;
    }
  }

  private record Child(Digest digest, ChunkIndex parent, int place, String end) {}

  /** {@code before} or {@code after} null: that side has no such folder. */
  public static DifferentChunks of(Objects beforeObjects, TreeObject before, Objects afterObjects, TreeObject after)
      throws IOException {
    List<Node> left = new ArrayList<>();
    List<Node> right = new ArrayList<>();
    if (before != null) {
      left.add(new Node(before, null));
    }
    if (after != null) {
      right.add(new Node(after, null));
    }
    Set<Digest> named = new HashSet<>();
    left.forEach(node -> named.add(node.digest()));
    long read = 0;
    while (true) {
      dropShared(left, right);
      int height = Math.max(maxHeight(left), maxHeight(right));
      if (height == 0) {
        break;
      }
      List<Child> leftChildren = open(left, height);
      List<Child> rightChildren = open(right, height);
      leftChildren.forEach(child -> named.add(child.digest()));
      Set<Digest> leftDigests = digests(left, leftChildren);
      Set<Digest> rightDigests = digests(right, rightChildren);
      leftChildren.removeIf(child -> rightDigests.contains(child.digest()));
      rightChildren.removeIf(child -> leftDigests.contains(child.digest()));
      right.removeIf(node -> leftDigests.contains(node.digest()));
      left.removeIf(node -> rightDigests.contains(node.digest()));
      read += fetch(beforeObjects, leftChildren, left);
      read += fetch(afterObjects, rightChildren, right);
    }
    return new DifferentChunks(entries(left), entries(right), read, named);
  }

  private static void dropShared(List<Node> left, List<Node> right) {
    Set<Digest> leftDigests = digests(left, List.of());
    Set<Digest> rightDigests = digests(right, List.of());
    left.removeIf(node -> rightDigests.contains(node.digest()));
    right.removeIf(node -> leftDigests.contains(node.digest()));
  }

  private static int maxHeight(List<Node> nodes) {
    return nodes.stream().mapToInt(Node::height).max().orElse(0);
  }

  /** Removes the indexes of this height from {@code nodes}, and returns their chunks. */
  private static List<Child> open(List<Node> nodes, int height) {
    List<Child> children = new ArrayList<>();
    List<Node> kept = new ArrayList<>();
    for (Node node : nodes) {
      if (node.height() != height) {
        kept.add(node);
        continue;
      }
      ChunkIndex index = node.object().index();
      for (int i = 0; i < index.chunks().size(); i++) {
        children.add(new Child(index.chunks().get(i).digest(), index, i, index.endOf(i, node.end())));
      }
    }
    nodes.clear();
    nodes.addAll(kept);
    return children;
  }

  private static Set<Digest> digests(List<Node> nodes, List<Child> children) {
    Set<Digest> digests = new HashSet<>();
    nodes.forEach(node -> digests.add(node.digest()));
    children.forEach(child -> digests.add(child.digest()));
    return digests;
  }

  private static long fetch(Objects objects, List<Child> children, List<Node> into) throws IOException {
    if (children.isEmpty()) {
      return 0;
    }
    List<Digest> digests = children.stream().map(Child::digest).distinct().toList();
    long declared = digests.stream().mapToLong(Digest::size).reduce(0, (a, b) -> a + b < a ? Long.MAX_VALUE : a + b);
    long limit = Runtime.getRuntime().maxMemory() / 8;
    if (declared > limit) {
      throw new IllegalArgumentException("Cannot compare a chunked folder: the chunks that differ declare " + declared
          + " bytes, more than this JVM can read at once (at most " + limit + ")");
    }
    Map<Digest, TreeObject> fetched = objects.fetch(digests);
    for (Child child : children) {
      TreeObject object = fetched.get(child.digest());
      child.parent().requireChild(child.place(), object, child.end());
      into.add(new Node(object, child.end()));
    }
    return fetched.size();
  }

  private static List<TreeEntry> entries(List<Node> nodes) {
    List<TreeEntry> entries = new ArrayList<>();
    nodes.forEach(node -> entries.addAll(node.object().leaf().entries()));
    return entries;
  }
}
