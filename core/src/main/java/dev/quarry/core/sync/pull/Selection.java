package dev.quarry.core.sync.pull;

import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.EntryType;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.cas.TreeObject;
import dev.quarry.core.sync.remote.ChildNames;
import dev.quarry.core.sync.remote.TreeDiff;
import dev.quarry.core.sync.remote.VersionPath;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The part of a version a pull writes: its folders, files and links by relative path. Built by fetching manifests
 * top-down, only those of folders the include patterns can reach, and checked whole before anything is written: every
 * folder's manifest must hold the files and bytes its parent declares for it, no path may be the folder's reserved
 * state nor a {@code .quarry} at any depth (as git refuses {@code .git}), a level's manifests are fetched only when
 * the bytes their digests declare fit in memory (so a wide fan-out of large manifests is refused before it is read),
 * and the paths must fit in memory (a "bomb" of manifests that name one child many times declares its
 * expansion, or is stopped while it is walked). In a chunked folder whose names the patterns bound, exactly or by
 * a literal start ({@link IncludeFilter#namesUnder}), only the chunks that can hold those names are read.
 */
record Selection(List<Folder> folders, List<File> files, List<Link> links, long manifestsRead) {
  /** What a selected path costs in memory, about, through the pull: its path, digest, states and records. */
  private static final long BYTES_PER_PATH = 1024;
  /**
   * The share of the heap a level's manifests may take as bytes: a decoded manifest takes about twice its bytes, and
   * a level's manifests are all held while their entries are walked.
   */
  private static final long HEAP_PER_MANIFEST_BYTE = 8;

  record Folder(String path, int mode) {}

  record File(String path, int mode, Digest digest) {}

  record Link(String path, String target) {}

  private record Pending(String path, TreeObject folder) {}

  private record Subfolder(String path, TreeEntry entry) {}

  /**
   * {@code reserved}: relative paths no version may hold (the state folder); {@code version}: as the user named it,
   * for messages.
   */
  static Selection of(TreeDiff.Trees trees, TreeObject root, IncludeFilter filter, String version,
      Set<String> reserved)
      throws IOException {
    long maxPaths = Runtime.getRuntime().maxMemory() / BYTES_PER_PATH;
    long maxLevelBytes = Runtime.getRuntime().maxMemory() / HEAP_PER_MANIFEST_BYTE;
    List<Folder> folders = new ArrayList<>();
    List<File> files = new ArrayList<>();
    List<Link> links = new ArrayList<>();
    long read = 1;
    long paths = 0;
    List<Pending> level = List.of(new Pending("", root));
    for (int depth = 1; !level.isEmpty(); depth++) {
      List<Subfolder> subfolders = new ArrayList<>();
      long declared = 0;
      for (Pending pending : level) {
        VersionPath.Named named = entries(trees, pending, filter);
        List<TreeEntry> entries = named.entries();
        read += named.read();
        paths += entries.size();
        if (paths > maxPaths) {
          throw refused(version, "it holds more paths than this JVM can hold (at most " + maxPaths
              + "; pull part of it with --include, or give the JVM more memory)");
        }
        for (TreeEntry entry : entries) {
          String path = TreeEntry.childPath(pending.path(), entry.name());
          if (reserved.contains(path)) {
            throw refused(version, "it names " + TreeEntry.printable(path)
                + ", the folder's reserved state, which no version may hold");
          }
          if (entry.type() != EntryType.DIRECTORY && reserved.stream().anyMatch(r -> r.startsWith(path + "/"))) {
            throw refused(version, "it names " + TreeEntry.printable(path) + " as a "
                + (entry.type() == EntryType.FILE ? "file" : "symbolic link")
                + ", but the folder's state folder lies under it");
          }
          if (entry.name().equals(SyncSession.DEFAULT_STATE_FOLDER)) {
            throw refused(version, "it names " + TreeEntry.printable(path)
                + ", a sync state folder, which no version may hold at any depth");
          }
          switch (entry.type()) {
            case FILE -> {
              if (filter.matches(path)) {
                files.add(new File(path, entry.mode(), entry.digest()));
              }
            }
            case SYMLINK -> {
              if (filter.matches(path)) {
                links.add(new Link(path, entry.target()));
              }
            }
            case DIRECTORY -> {
              if (filter.mayContain(path)) {
                subfolders.add(new Subfolder(path, entry));
                declared = saturatedSum(declared, entry.files());
              }
            }
          }
        }
      }
      long upTo = saturatedSum(declared, files.size() + links.size());
      if (upTo > maxPaths) {
        throw refused(version, "it declares up to " + upTo + " files, more paths than this JVM can hold (at most "
            + maxPaths + "; pull part of it with --include, or give the JVM more memory)");
      }
      Set<Digest> toFetch = new HashSet<>();
      subfolders.forEach(subfolder -> toFetch.add(subfolder.entry().digest()));
      long levelBytes = toFetch.stream().mapToLong(Digest::size).reduce(0, Selection::saturatedSum);
      if (levelBytes > maxLevelBytes) {
        throw refused(version, "its folders at depth " + depth + " declare " + levelBytes + " bytes of manifests, more"
            + " than this JVM can read at once (at most " + maxLevelBytes + "; pull part of it with --include, or give"
            + " the JVM more memory)");
      }
      Map<Digest, TreeObject> fetched = trees.fetch(toFetch);
      read += fetched.size();
      List<Pending> next = new ArrayList<>();
      for (Subfolder subfolder : subfolders) {
        TreeEntry entry = subfolder.entry();
        TreeObject manifest = fetched.get(entry.digest());
        if (manifest.files() != entry.files() || manifest.bytes() != entry.bytes()) {
          throw refused(version, "folder " + TreeEntry.printable(subfolder.path()) + " declares " + entry.files()
              + " files and " + entry.bytes() + " bytes, but its manifest holds " + manifest.files() + " files and "
              + manifest.bytes() + " bytes");
        }
        next.add(new Pending(subfolder.path(), manifest));
        if (filter.matches(subfolder.path())) {
          folders.add(new Folder(subfolder.path(), entry.mode()));
        }
      }
      level = next;
    }
    return new Selection(folders, files, links, read);
  }

  /**
   * The entries of a folder a pull may select: in a chunked folder whose names the patterns bound, those read from
   * the chunks that can hold them; otherwise all of them.
   */
  private static VersionPath.Named entries(TreeDiff.Trees trees, Pending pending, IncludeFilter filter)
      throws IOException {
    if (!pending.folder().isIndex()) {
      return new VersionPath.Named(pending.folder().leaf().entries(), 0);
    }
    Optional<ChildNames> names = filter.namesUnder(pending.path());
    if (names.isPresent()) {
      return VersionPath.named(trees, pending.folder(), names.get());
    }
    Manifest whole = VersionPath.whole(trees, pending.folder());
    return new VersionPath.Named(whole.entries(), whole.objects().size() - 1);
  }

  long bytes() {
    return files.stream().mapToLong(file -> file.digest().size()).sum();
  }

  private static long saturatedSum(long a, long b) {
    long sum = a + b;
    return sum < a ? Long.MAX_VALUE : sum;
  }

  private static IllegalArgumentException refused(String version, String reason) {
    return new IllegalArgumentException("Cannot pull " + TreeEntry.printable(version) + ": " + reason);
  }
}
