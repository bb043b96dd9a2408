package dev.quarry.core.sync.local;

import dev.quarry.core.concurrent.Futures;
import dev.quarry.core.concurrent.Throttle;
import dev.quarry.core.sync.cas.ChunkIndex;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.units.ByteSize;
import dev.quarry.core.units.Counted;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.Future;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Turns a folder into a {@link LocalTree}: walks it with lstat, takes digests of unchanged files from the state
 * database, hashes the others, then builds the manifests bottom-up, each step on all cores (a status of 100k
 * unchanged files is mostly this walk). Symbolic links are entries, never followed. Sockets, pipes and devices are
 * left out with a warning.
 */
public final class TreeScanner {
  private static final int BUFFER_BYTES = 1 << 20;
  /** A name left out at every depth: the state folder of this or of a nested sync root, which no version may hold. */
  private static final Set<String> STATE_FOLDER = Set.of(".quarry");

  private final StateDatabase state;
  private final int hashThreads;
  private static final long PROGRESS_NANOS = 2_000_000_000L;
  /**
   * The most files a scan looks up one by one in the state database when their folders' listings lack them; with
   * more, it reads the whole table once.
   */
  private static final int LOOKUPS_AT_MOST = 20_000;

  /** The names left out of each folder: the state folder's, and those of the paths excluded there. */
  private final Map<Path, Set<String>> excludedNames;
  private final FolderReader reader = FolderReader.forThisRuntime();
  private final IgnoreRules ignored;
  private final Consumer<String> progress;

  /**
   * {@code excluded}: absolute paths left out of the tree, such as the state folder itself; {@code progress} gets a
   * line for people every two seconds while files are hashed.
   */
  public TreeScanner(StateDatabase state, int hashThreads, Set<Path> excluded, Consumer<String> progress) {
    this(state, hashThreads, excluded, IgnoreRules.none(), progress);
  }

  /** {@code ignored}: the folder's {@code .quarryignore}; what it ignores is left out, and ignored folders unread. */
  public TreeScanner(StateDatabase state, int hashThreads, Set<Path> excluded, IgnoreRules ignored,
      Consumer<String> progress) {
    this.state = state;
    this.hashThreads = Math.max(1, hashThreads);
    Map<Path, Set<String>> names = new HashMap<>();
    for (Path path : excluded) {
      if (path.getParent() != null) {
        names.computeIfAbsent(path.getParent(), parent -> new HashSet<>(STATE_FOLDER))
            .add(path.getFileName().toString());
      }
    }
    this.excludedNames = Map.copyOf(names);
    this.ignored = ignored;
    this.progress = progress;
  }

  private sealed interface Node permits FileNode, DirNode, LinkNode {}

  private static final class FileNode implements Node {
    final String name;
    /** Its folder; its own path is made only when asked (a folder found as listed never does). */
    final Path dir;
    private Path path;
    final FileIdentity identity;
    /** Its folder's recorded listing and its entry there, when that entry has its (inode, mtime, size); else null. */
    FolderListing listing;
    int listed;
    volatile Digest digest;
    /** Its state row when it is hashed although it has one (changed, or recorded untrusted); else null. */
    StateDatabase.FileState previous;

    FileNode(String name, Path dir, Path path, FileIdentity identity) {
      this.name = name;
      this.dir = dir;
      this.path = path;
      this.identity = identity;
    }

    Path path() {
      if (path == null) {
        path = dir.resolve(name);
      }
      return path;
    }

    /** From the listing only when asked: a folder found as recorded never builds its files' digests. */
    Digest digest() {
      Digest known = digest;
      if (known == null && listing != null) {
        known = listing.digest(listed);
        digest = known;
      }
      return known;
    }
  }

  private static final class DirNode implements Node {
    final String name;
    final Path path;
    final int mode;
    final List<Node> children;
    /** What the state database recorded for this folder, or null. */
    FolderListing listing;
    /** Whether every entry is the listing's, in its order, every file with its (inode, mtime, size). */
    boolean asListed;

    DirNode(String name, Path path, int mode, List<Node> children) {
      this.name = name;
      this.path = path;
      this.mode = mode;
      this.children = children;
    }
  }

  private record LinkNode(String name, String target) implements Node {}

  public LocalTree scan(Path folder) throws IOException {
    FileIdentity.requireUtf8FileNames();
    Path root = folder.toAbsolutePath().normalize();
    FileIdentity rootIdentity;
    try {
      rootIdentity = FileIdentity.of(root);
    } catch (NoSuchFileException e) {
      throw new IOException("Cannot scan " + root + ": it does not exist", e);
    }
    if (!rootIdentity.isDirectory()) {
      throw new IOException("Cannot scan " + root + ": it is not a folder");
    }
    List<String> warnings = Collections.synchronizedList(new ArrayList<>());
    Queue<DirNode> walked = new ConcurrentLinkedQueue<>();
    Queue<FileNode> unlisted = new ConcurrentLinkedQueue<>();
    Set<String> vanished = ConcurrentHashMap.newKeySet();
    Set<String> vanishedFolders = ConcurrentHashMap.newKeySet();
    // Taken before the first lstat: a file written after it is recorded untrusted, so a write within the same clock
    // tick as the one hashed now (same mtime, same size) is still seen by the next scan.
    FileClock.Horizon horizon = state.clock().beforeLooking(root);
    try (ForkJoinPool pool = new ForkJoinPool(hashThreads)) {
      // What was recorded of each folder, read while the walk lstats the first folders: each folder waits for it
      // only to compare its entries with its listing.
      CompletableFuture<Map<String, byte[]>> listed = new CompletableFuture<>();
      Walk walk = new Walk(listed, walked, unlisted, vanished, vanishedFolders, warnings);
      ForkJoinTask<DirNode> walking = pool.submit(new WalkTask(walk, "", "", root, rootIdentity.permissions()));
      Map<String, byte[]> recorded;
      try {
        recorded = state.loadFolders(root);
        listed.complete(recorded);
      } catch (IOException | RuntimeException e) {
        listed.completeExceptionally(e);
        throw e;
      }
      DirNode top = joined(walking);
      List<DirNode> folders = new ArrayList<>(walked);
      List<FileNode> toHash = new ArrayList<>();
      Map<String, StateDatabase.FileState> known;
      boolean loadedAll = unlisted.size() > LOOKUPS_AT_MOST;
      if (loadedAll) {
        // Many files unlisted (the first scan of a database from before listings, a new subtree): one pass over the
        // table costs less than a lookup of each.
        known = state.load(root);
      } else {
        known = state.lookup(unlisted.stream().map(file -> file.path().toString()).toList());
      }
      for (FileNode file : unlisted) {
        StateDatabase.FileState previous = known.get(file.path().toString());
        if (previous != null && previous.matches(file.identity)) {
          file.digest = previous.digest();
        } else {
          file.previous = previous;
          toHash.add(file);
        }
      }
      Map<String, StateDatabase.FileState> hashed = hash(toHash, horizon);
      state.record(hashed);
      if (loadedAll) {
        Set<String> present = new HashSet<>();
        for (DirNode dir : folders) {
          if (dir.asListed) { // its files are the listing's
            for (int i = 0; i < dir.listing.count(); i++) {
              if (dir.listing.type(i) == FolderListing.FILE) {
                present.add(dir.path.resolve(dir.listing.name(i)).toString());
              }
            }
          }
          dir.children.forEach(child -> {
            if (child instanceof FileNode file) {
              present.add(file.path().toString());
            }
          });
        }
        state.forget(known.keySet().stream().filter(path -> !present.contains(path)).toList());
      } else {
        state.forget(vanished);
        state.forgetFilesUnder(vanishedFolders);
      }
      Map<Digest, Manifest> manifests = new ConcurrentHashMap<>();
      Map<String, byte[]> listings = new ConcurrentHashMap<>();
      LocalDirectory topDirectory = inPool(pool, new BuildTask(top, manifests, listings, horizon));
      state.recordFolders(listings);
      Set<String> present = new HashSet<>();
      folders.forEach(dir -> present.add(dir.path.toString()));
      state.forgetFolders(recorded.keySet().stream().filter(path -> !present.contains(path)).toList());
      long hashedBytes = hashed.values().stream().mapToLong(StateDatabase.FileState::size).sum();
      return new LocalTree(topDirectory, manifests, hashed.size(), hashedBytes, warnings);
    }
  }

  /** What every folder's walk shares: the recorded listings, and where it puts what it found. */
  private record Walk(CompletableFuture<Map<String, byte[]>> recorded, Queue<DirNode> folders,
      Queue<FileNode> unlisted, Set<String> vanished, Set<String> vanishedFolders, List<String> warnings) {}

  /**
   * Compares a folder's entries ({@code entries}: files and links in the walk's order, then {@code subfolders}) with
   * its listing, position by position: as listed when every entry is the listing's (a file's mode and (inode, mtime,
   * size) included), and then its files need nothing more. Otherwise each file found in the listing (at its position,
   * or by name once the names stop matching) with its (inode, mtime, size) takes its digest from there, the others go
   * to {@code unlisted}, and the listed entries that are gone to {@code vanished} (files) and {@code vanishedFolders}.
   */
  private static boolean compare(Walk walk, Path dir, FolderListing listing, List<Node> entries,
      List<WalkTask> subfolders) {
    if (listing == null) {
      entries.forEach(child -> {
        if (child instanceof FileNode file) {
          walk.unlisted().add(file);
        }
      });
      return false;
    }
    // Positions hold while each entry has the name and type listed at its place: in a folder where files changed
    // but none came or went, all of them (a million-entry folder never builds the listing's index of names).
    boolean samePlaces = listing.count() == entries.size() + subfolders.size();
    boolean asListed = samePlaces;
    boolean[] seen = samePlaces ? null : new boolean[listing.count()];
    for (int i = 0; i < entries.size(); i++) {
      Node child = entries.get(i);
      if (samePlaces && !isAtPlace(listing, i, child)) {
        samePlaces = false;
        asListed = false;
        seen = new boolean[listing.count()];
        java.util.Arrays.fill(seen, 0, i, true);
      }
      if (samePlaces) {
        asListed = asListed && isListedAt(listing, i, child);
        if (child instanceof FileNode file && listing.sameFile(i, file.identity)) {
          file.listing = listing;
          file.listed = i;
        } else if (child instanceof FileNode file) {
          walk.unlisted().add(file);
        }
        continue;
      }
      String name = child instanceof FileNode file ? file.name : ((LinkNode) child).name();
      byte type = child instanceof FileNode ? FolderListing.FILE : FolderListing.LINK;
      int at = listing.indexOf(name);
      if (at >= 0 && listing.type(at) == type) {
        seen[at] = true;
      }
      if (child instanceof FileNode file) {
        if (at >= 0 && listing.type(at) == FolderListing.FILE && listing.sameFile(at, file.identity)) {
          file.listing = listing;
          file.listed = at;
        } else {
          walk.unlisted().add(file);
        }
      }
    }
    for (int j = 0; j < subfolders.size(); j++) {
      WalkTask sub = subfolders.get(j);
      int i = entries.size() + j;
      if (samePlaces && !(listing.type(i) == FolderListing.DIRECTORY && listing.isNamed(i, sub.name))) {
        samePlaces = false;
        asListed = false;
        seen = new boolean[listing.count()];
        java.util.Arrays.fill(seen, 0, i, true);
      }
      if (samePlaces) {
        asListed = asListed && listing.mode(i) == sub.mode;
      } else {
        int at = listing.indexOf(sub.name);
        if (at >= 0 && listing.type(at) == FolderListing.DIRECTORY) {
          seen[at] = true;
        }
      }
    }
    if (!samePlaces) {
      for (int i = 0; i < listing.count(); i++) {
        byte type = listing.type(i);
        if (!seen[i] && type != FolderListing.LINK) {
          String path = dir.resolve(listing.name(i)).toString();
          (type == FolderListing.FILE ? walk.vanished() : walk.vanishedFolders()).add(path);
        }
      }
    }
    return asListed;
  }

  /** Whether {@code child} has the name and type of entry {@code i} of the listing. */
  private static boolean isAtPlace(FolderListing listing, int i, Node child) {
    return switch (child) {
      case FileNode file -> listing.type(i) == FolderListing.FILE && listing.isNamed(i, file.name);
      case LinkNode link -> listing.type(i) == FolderListing.LINK && listing.isNamed(i, link.name());
      case DirNode sub -> false;
    };
  }

  /** Whether {@code child} is entry {@code i} of the listing: name, type, mode, and a file's (inode, mtime, size). */
  private static boolean isListedAt(FolderListing listing, int i, Node child) {
    return switch (child) {
      case FileNode file -> listing.type(i) == FolderListing.FILE && listing.isNamed(i, file.name)
          && listing.mode(i) == file.identity.permissions() && listing.sameFile(i, file.identity);
      case LinkNode link -> listing.type(i) == FolderListing.LINK && listing.isNamed(i, link.name())
          && listing.target(i).equals(link.target());
      case DirNode sub -> false;
    };
  }

  /** Runs {@code task} in the scan's pool, where its forks and parallel streams run on all cores. */
  private static <T> T inPool(ForkJoinPool pool, ForkJoinTask<T> task) throws IOException {
    try {
      return pool.invoke(task);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /** The result of a task submitted to the scan's pool, with its IOException as thrown. */
  private static <T> T joined(ForkJoinTask<T> task) throws IOException {
    try {
      return task.join();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  private static <T> T inPool(ForkJoinPool pool, Callable<T> task) throws IOException {
    return inPool(pool, ForkJoinTask.adapt(task));
  }

  private final class WalkTask extends RecursiveTask<DirNode> {
    private final Walk walk;
    private final String name;
    /** The folder's path relative to the top, with a trailing '/' unless it is the top. */
    private final String prefix;
    private final Path dir;
    private final int mode;

    WalkTask(Walk walk, String name, String prefix, Path dir, int mode) {
      this.walk = walk;
      this.name = name;
      this.prefix = prefix;
      this.dir = dir;
      this.mode = mode;
    }

    @Override
    protected DirNode compute() {
      try {
        return walk(this);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /**
   * Lists and lstats a folder, compares it with its listing, and walks its subfolders as forked tasks. A folder as
   * listed keeps only its subfolders: what it holds besides is the listing's.
   */
  private DirNode walk(WalkTask task) throws IOException {
    Path dir = task.dir;
    Walk walk = task.walk;
    List<Node> children = new ArrayList<>();
    List<WalkTask> subfolders = new ArrayList<>();
    FolderReader.Entries entries = reader.read(dir, excludedNames.getOrDefault(dir, STATE_FOLDER));
    for (int i = 0; i < entries.names().length; i++) {
      FileIdentity identity = entries.identities()[i];
      String childName = entries.names()[i];
      if (!identity.isDirectory() && PartFiles.isPartFile(childName)) {
        continue; // A killed pull's temporary: never part of a version.
      }
      if (!ignored.isEmpty() && ignored.ignoresItself(task.prefix + childName, identity.isDirectory())) {
        continue; // its folders were checked on the way down
      }
      if (identity.isDirectory()) {
        WalkTask subfolder = new WalkTask(walk, childName, task.prefix + childName + "/", entries.path(dir, i),
            identity.permissions());
        subfolder.fork();
        subfolders.add(subfolder);
      } else if (identity.isSymbolicLink()) {
        children.add(new LinkNode(childName, Files.readSymbolicLink(entries.path(dir, i)).toString()));
      } else if (identity.isRegularFile()) {
        children.add(new FileNode(childName, dir, entries.paths() == null ? null : entries.paths()[i], identity));
      } else {
        walk.warnings().add("Left out " + entries.path(dir, i) + ": not a regular file, folder or symbolic link");
      }
    }
    byte[] recorded = walk.recorded().join().get(dir.toString());
    FolderListing listing = recorded != null ? FolderListing.decode(recorded) : null;
    boolean asListed = compare(walk, dir, listing, children, subfolders);
    if (asListed) {
      children = new ArrayList<>(subfolders.size());
    }
    for (WalkTask subfolder : subfolders) {
      children.add(subfolder.join());
    }
    DirNode node = new DirNode(task.name, dir, task.mode, children);
    node.listing = listing;
    node.asListed = asListed;
    walk.folders().add(node);
    return node;
  }

  private Map<String, StateDatabase.FileState> hash(List<FileNode> files, FileClock.Horizon horizon)
      throws IOException {
    Map<String, StateDatabase.FileState> hashed = new ConcurrentHashMap<>();
    if (files.isEmpty()) {
      return hashed;
    }
    AtomicLong next = new AtomicLong();
    AtomicLong hashedBytes = new AtomicLong();
    Throttle throttle = new Throttle(PROGRESS_NANOS, false);
    try (ExecutorService pool = Executors.newFixedThreadPool(hashThreads)) {
      List<Future<Void>> workers = new ArrayList<>();
      for (int t = 0; t < hashThreads; t++) {
        workers.add(pool.submit(() -> {
          ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES);
          MessageDigest sha256 = Digest.sha256();
          for (long i = next.getAndIncrement(); i < files.size(); i = next.getAndIncrement()) {
            FileNode file = files.get((int) i);
            file.digest = hashFile(file, buffer, sha256);
            hashedBytes.addAndGet(file.identity.size());
            if (throttle.due()) {
              progress.accept(String.format(java.util.Locale.ROOT, "scan: hashed %d/%d %s, %s", i + 1,
                  files.size(), Counted.noun(files.size(), "file"), ByteSize.format(hashedBytes.get())));
            }
            FileIdentity identity = file.identity;
            // The same content as its row's stays synced (a touch, or a row recorded untrusted): a pull may replace it.
            boolean synced = file.previous != null && file.previous.synced()
                && file.previous.digest().equals(file.digest);
            hashed.put(file.path().toString(), horizon.toRecord(new StateDatabase.FileState(identity.inode(),
                identity.mtimeNanos(), identity.size(), file.digest, synced)));
          }
          return null;
        }));
      }
      for (Future<Void> worker : workers) {
        worker.get();
      }
    } catch (ExecutionException e) {
      throw Futures.unwrap(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Cannot hash files: interrupted", e);
    }
    return hashed;
  }

  private static Digest hashFile(FileNode file, ByteBuffer buffer, MessageDigest sha256) throws IOException {
    sha256.reset();
    long length = 0;
    try (FileChannel channel = FileChannel.open(file.path(), StandardOpenOption.READ)) {
      while (true) {
        buffer.clear();
        int read = channel.read(buffer);
        if (read < 0) {
          break;
        }
        buffer.flip();
        sha256.update(buffer);
        length += read;
      }
    }
    if (length != file.identity.size()) {
      throw new IOException("Cannot hash " + file.path() + ": it changed while being read (" + file.identity.size()
          + " bytes before, " + length + " read); run again once nothing writes to it");
    }
    return Digest.of(sha256, length);
  }

  /**
   * Builds a folder's manifest after its subfolders', which are built as forked tasks. A folder as listed whose
   * subfolders have the digests listed takes its digest from the listing; any other is built, and its new listing
   * goes to {@code listings}.
   */
  private static final class BuildTask extends RecursiveTask<LocalDirectory> {
    private final DirNode dir;
    private final Map<Digest, Manifest> manifests;
    private final Map<String, byte[]> listings;
    private final FileClock.Horizon horizon;

    BuildTask(DirNode dir, Map<Digest, Manifest> manifests, Map<String, byte[]> listings,
        FileClock.Horizon horizon) {
      this.dir = dir;
      this.manifests = manifests;
      this.listings = listings;
      this.horizon = horizon;
    }

    @Override
    protected LocalDirectory compute() {
      Map<String, BuildTask> subfolders = new HashMap<>();
      for (Node child : dir.children) {
        if (child instanceof DirNode sub) {
          BuildTask task = new BuildTask(sub, manifests, listings, horizon);
          task.fork();
          subfolders.put(sub.name, task);
        }
      }
      Map<String, LocalDirectory> subdirectories = new HashMap<>();
      subfolders.forEach((name, task) -> subdirectories.put(name, task.join()));
      Manifest manifest;
      FolderListing listing = dir.listing;
      if (dir.asListed) {
        Set<String> changed = new HashSet<>(); // its subfolders whose digests are not the listed ones
        int first = listing.count() - dir.children.size(); // the subfolders are listed last, in the walk's order
        for (int j = 0; j < dir.children.size(); j++) {
          String name = ((DirNode) dir.children.get(j)).name;
          Manifest built = subdirectories.get(name).manifest();
          if (!listing.sameFolder(first + j, built.digest(), built.files(), built.bytes())) {
            changed.add(name);
          }
        }
        if (changed.isEmpty() && !listing.chunked()) {
          manifest = Manifest.known(listing.digest(), listing.files(), listing.bytes(),
              () -> listedEntries(listing, subdirectories));
        } else {
          // A chunked folder is built again (its chunks and index are objects of their own), from its recorded chunks
          // but for those its changed subfolders are in.
          List<ChunkIndex.Chunk> previous = listing.chunks();
          manifest = Manifest.of(listedEntries(listing, subdirectories), previous, changed);
          if (!changed.isEmpty() || (manifest.isChunked() && previous.isEmpty())) {
            listings.put(dir.path.toString(), relisted(listing, subdirectories, manifest));
          }
        }
      } else {
        List<ChunkIndex.Chunk> previous = listing != null ? listing.chunks() : List.of();
        Set<String> changed = new HashSet<>();
        List<TreeEntry> entries = entries(dir, subdirectories, changed);
        manifest = Manifest.of(entries, previous, changed);
        listings.put(dir.path.toString(), listing(dir, subdirectories, manifest, horizon));
      }
      manifests.putIfAbsent(manifest.digest(), manifest);
      return new LocalDirectory(dir.path, manifest, subdirectories);
    }
  }

  /**
   * A folder's entries as found now; {@code changed} gets the names of those that may not be the entries of the
   * build its listing recorded: all but the files the listing has with their (inode, mtime, size) and mode, the links
   * it has with their target and the subfolders it has with their mode and manifest.
   */
  private static List<TreeEntry> entries(DirNode dir, Map<String, LocalDirectory> subdirectories,
      Set<String> changed) {
    List<TreeEntry> entries = new ArrayList<>(dir.children.size());
    FolderListing listing = dir.listing;
    for (int j = 0; j < dir.children.size(); j++) {
      Node child = dir.children.get(j);
      boolean asListed = switch (child) {
        case FileNode file -> file.listing != null && file.listing.mode(file.listed) == file.identity.permissions();
        case LinkNode link -> {
          int at = listed(listing, j, link.name(), FolderListing.LINK);
          yield at >= 0 && listing.target(at).equals(link.target());
        }
        case DirNode sub -> {
          int at = listed(listing, j, sub.name, FolderListing.DIRECTORY);
          Manifest built = subdirectories.get(sub.name).manifest();
          yield at >= 0 && listing.mode(at) == sub.mode
              && listing.sameFolder(at, built.digest(), built.files(), built.bytes());
        }
      };
      if (!asListed) {
        changed.add(switch (child) {
          case FileNode file -> file.name;
          case LinkNode link -> link.name();
          case DirNode sub -> sub.name;
        });
      }
      entries.add(switch (child) {
        case FileNode file -> TreeEntry.file(file.name, file.identity.permissions(), file.digest());
        case LinkNode link -> TreeEntry.symlink(link.name(), link.target());
        case DirNode sub -> {
          Manifest manifest = subdirectories.get(sub.name).manifest();
          yield TreeEntry.directory(sub.name, sub.mode, manifest.digest(), manifest.files(), manifest.bytes());
        }
      });
    }
    return entries;
  }

  /**
   * Where {@code listing} has an entry of this name and type: at the walk's place {@code j} when the names there
   * still match, else by name; -1 when it has none.
   */
  private static int listed(FolderListing listing, int j, String name, byte type) {
    if (listing == null) {
      return -1;
    }
    int at = j < listing.count() && listing.isNamed(j, name) ? j : listing.indexOf(name);
    return at >= 0 && listing.type(at) == type ? at : -1;
  }

  /** The entries of a folder as listed, with its subfolders as built now. */
  private static List<TreeEntry> listedEntries(FolderListing listing, Map<String, LocalDirectory> subdirectories) {
    List<TreeEntry> entries = new ArrayList<>(listing.count());
    for (int i = 0; i < listing.count(); i++) {
      String name = listing.name(i);
      entries.add(switch (listing.type(i)) {
        case FolderListing.FILE -> TreeEntry.file(name, listing.mode(i), listing.digest(i));
        case FolderListing.LINK -> TreeEntry.symlink(name, listing.target(i));
        default -> {
          Manifest manifest = subdirectories.get(name).manifest();
          yield TreeEntry.directory(name, listing.mode(i), manifest.digest(), manifest.files(), manifest.bytes());
        }
      });
    }
    return entries;
  }

  /** The listing of a folder as listed whose subfolders changed: the same entries, the subfolders as built now. */
  private static byte[] relisted(FolderListing listing, Map<String, LocalDirectory> subdirectories,
      Manifest manifest) {
    FolderListing.Writer writer = new FolderListing.Writer(listing.count());
    for (int i = 0; i < listing.count(); i++) {
      if (listing.type(i) == FolderListing.DIRECTORY) {
        String name = listing.name(i);
        Manifest built = subdirectories.get(name).manifest();
        writer.directory(name, listing.mode(i), built.digest(), built.files(), built.bytes());
      } else {
        writer.copy(listing, i);
      }
    }
    return writer.finish(manifest.digest(), manifest.files(), manifest.bytes(), manifest.isChunked(),
        manifest.chunks());
  }

  /** What the state database records of a folder just built: its entries in the walk's order. */
  private static byte[] listing(DirNode dir, Map<String, LocalDirectory> subdirectories, Manifest manifest,
      FileClock.Horizon horizon) {
    FolderListing.Writer writer = new FolderListing.Writer(dir.children.size());
    for (Node child : dir.children) {
      switch (child) {
        case FileNode file -> {
          if (file.listing != null && file.listing.mode(file.listed) == file.identity.permissions()) {
            writer.copy(file.listing, file.listed); // name, mode, (inode, mtime, size) and digest as listed
          } else {
            writer.file(file.name, file.identity.permissions(), horizon.toRecord(file.identity), file.digest());
          }
        }
        case LinkNode link -> writer.link(link.name(), link.target());
        case DirNode sub -> {
          Manifest built = subdirectories.get(sub.name).manifest();
          writer.directory(sub.name, sub.mode, built.digest(), built.files(), built.bytes());
        }
      }
    }
    return writer.finish(manifest.digest(), manifest.files(), manifest.bytes(), manifest.isChunked(),
        manifest.chunks());
  }
}
