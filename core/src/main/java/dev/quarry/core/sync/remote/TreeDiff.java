package dev.quarry.core.sync.remote;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.EntryType;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.cas.TreeObject;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * What changed between two trees (two versions, or a version and a scanned folder), by walking both together and
 * reading a manifest only where the two differ: a folder whose digest is the same on both sides is never opened, so
 * one changed file costs one manifest per folder on its path and side (and in a chunked folder, its index and the
 * chunks that differ: {@link DifferentChunks}). A file deleted at one path and added with the
 * same content at another is a rename. Every path walked is counted (folders too: a "bomb" of empty folders that
 * name one child twice on each level has no changes but 2^depth paths), and a diff that walks more paths than the
 * JVM can hold is refused before it runs out of memory.
 */
public final class TreeDiff {
  /** What memory a path walked costs, about: its path, digests and records. */
  private static final long BYTES_PER_PATH = 512;

  public enum Kind { ADDED, DELETED, MODIFIED, RENAMED }

  /**
   * One changed path. {@code from}: the old path of a rename, else null; {@code before}/{@code after}: the content on
   * each side (null where absent, and for a symbolic link), {@code size} its bytes on the newer side (the older for a
   * deletion).
   */
  public record Change(Kind kind, String path, String from, String type, Digest before, Digest after, long size) {}

  /** The tree objects of one side, by digest: fetched from a remote, or looked up in a scanned tree. */
  @FunctionalInterface
  public interface Trees extends DifferentChunks.Objects {
    static Trees of(CasRemote remote) {
      return remote::fetchObjects;
    }

    static Trees of(Map<Digest, Manifest> scanned) {
      Map<Digest, TreeObject> objects = TreeObject.byDigest(scanned.values());
      return digests -> {
        Map<Digest, TreeObject> found = new HashMap<>();
        for (Digest digest : digests) {
          found.put(digest, Objects.requireNonNull(objects.get(digest), "a scanned tree lacks its own manifest"));
        }
        return found;
      };
    }
  }

  /** The changes sorted by path, and the manifests read beyond the two roots. */
  public record Result(List<Change> changes, long manifestsRead) {
    public long count(Kind kind) {
      return changes.stream().filter(change -> change.kind() == kind).count();
    }
  }

  private record Pair(String path, TreeObject before, TreeObject after) {}

  private record Pending(String path, Digest before, Digest after) {}

  private final Trees beforeTrees;
  private final Trees afterTrees;
  private final long maxPaths;
  private final List<Change> changes = new ArrayList<>();
  private long manifestsRead;
  private long walked;

  private TreeDiff(Trees before, Trees after, long maxPaths) {
    this.beforeTrees = before;
    this.afterTrees = after;
    this.maxPaths = maxPaths;
  }

  /** {@code beforeRoot}, {@code afterRoot}: the top objects of the two roots ({@link CasRemote#resolveRoot}). */
  public static Result compare(Trees before, TreeObject beforeRoot, Trees after, TreeObject afterRoot)
      throws IOException {
    return compare(before, beforeRoot, after, afterRoot, Runtime.getRuntime().maxMemory() / BYTES_PER_PATH);
  }

  static Result compare(Trees before, TreeObject beforeRoot, Trees after, TreeObject afterRoot, long maxPaths)
      throws IOException {
    TreeDiff diff = new TreeDiff(before, after, maxPaths);
    List<Pair> level = beforeRoot.digest().equals(afterRoot.digest()) ? List.of()
        : List.of(new Pair("", beforeRoot, afterRoot));
    while (!level.isEmpty()) {
      List<Pending> next = new ArrayList<>();
      for (Pair pair : level) {
        diff.compareFolder(pair, next);
      }
      level = diff.fetch(next);
    }
    return new Result(diff.withRenames(), diff.manifestsRead);
  }

  private void compareFolder(Pair pair, List<Pending> next) throws IOException {
    DifferentChunks differing = DifferentChunks.of(beforeTrees, pair.before(), afterTrees, pair.after());
    manifestsRead += differing.read();
    Map<String, TreeEntry> before = new TreeMap<>();
    differing.before().forEach(entry -> before.put(entry.name(), entry));
    Set<String> seen = new HashSet<>();
    for (TreeEntry entry : differing.after()) {
      seen.add(entry.name());
      compareEntry(TreeEntry.childPath(pair.path(), entry.name()), before.get(entry.name()), entry, next);
    }
    for (TreeEntry entry : before.values()) {
      if (!seen.contains(entry.name())) {
        compareEntry(TreeEntry.childPath(pair.path(), entry.name()), entry, null, next);
      }
    }
  }

  private void compareEntry(String path, TreeEntry before, TreeEntry after, List<Pending> next) {
    if (++walked > maxPaths) {
      throw new IllegalArgumentException("Cannot diff: it walks more than " + maxPaths + " paths, more than this JVM"
          + " can hold (diff a folder of it, or give the JVM more memory)");
    }
    if (before != null && after != null && before.type() == after.type()) {
      if (Objects.equals(before.digest(), after.digest()) && Objects.equals(before.target(), after.target())
          && before.mode() == after.mode()) {
        return;
      }
      if (after.isDirectory()) {
        if (!before.digest().equals(after.digest())) {
          next.add(new Pending(path, before.digest(), after.digest()));
        }
        return; // a folder's own mode is not a change of its content
      }
      changes.add(new Change(Kind.MODIFIED, path, null, type(after), before.digest(), after.digest(), after.bytes()));
      return;
    }
    if (before != null) {
      if (before.isDirectory()) {
        next.add(new Pending(path, before.digest(), null));
      } else {
        changes.add(new Change(Kind.DELETED, path, null, type(before), before.digest(), null, before.bytes()));
      }
    }
    if (after != null) {
      if (after.isDirectory()) {
        next.add(new Pending(path, null, after.digest()));
      } else {
        changes.add(new Change(Kind.ADDED, path, null, type(after), null, after.digest(), after.bytes()));
      }
    }
  }

  /** The manifests of the next level, each side from its own trees, all of a level at once. */
  private List<Pair> fetch(List<Pending> pending) throws IOException {
    if (pending.isEmpty()) {
      return List.of();
    }
    Map<Digest, TreeObject> before = beforeTrees.fetch(pending.stream().map(Pending::before)
        .filter(Objects::nonNull).distinct().toList());
    Map<Digest, TreeObject> after = afterTrees.fetch(pending.stream().map(Pending::after)
        .filter(Objects::nonNull).distinct().toList());
    manifestsRead += before.size() + after.size();
    List<Pair> level = new ArrayList<>(pending.size());
    for (Pending p : pending) {
      level.add(new Pair(p.path(), p.before() != null ? before.get(p.before()) : null,
          p.after() != null ? after.get(p.after()) : null));
    }
    return level;
  }

  /** Pairs each added file with a deleted file of the same content, one to one, as a rename. */
  private List<Change> withRenames() {
    Map<Digest, Deque<Change>> deleted = new HashMap<>();
    for (Change change : changes) {
      if (change.kind() == Kind.DELETED && change.before() != null) {
        deleted.computeIfAbsent(change.before(), d -> new ArrayDeque<>()).add(change);
      }
    }
    Set<Change> renamedFrom = new HashSet<>();
    List<Change> result = new ArrayList<>();
    for (Change change : changes) {
      Deque<Change> sources = change.kind() == Kind.ADDED && change.after() != null
          ? deleted.get(change.after()) : null;
      if (sources != null && !sources.isEmpty()) {
        Change source = sources.poll();
        renamedFrom.add(source);
        result.add(new Change(Kind.RENAMED, change.path(), source.path(), change.type(), source.before(),
            change.after(), change.size()));
      } else if (change.kind() != Kind.DELETED) {
        result.add(change);
      }
    }
    for (Change change : changes) {
      if (change.kind() == Kind.DELETED && !renamedFrom.contains(change)) {
        result.add(change);
      }
    }
    result.sort(Comparator.comparing(Change::path));
    return result;
  }

  private static String type(TreeEntry entry) {
    return entry.type() == EntryType.SYMLINK ? "symlink" : "file";
  }
}
