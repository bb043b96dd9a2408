package dev.quarry.core.sync.local;

import dev.quarry.core.concurrent.Futures;
import dev.quarry.core.concurrent.Throttle;
import dev.quarry.core.sync.cas.Chunking;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.units.ByteSize;
import dev.quarry.core.units.Counted;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
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
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * Turns a folder into a {@link LocalTree}: walks it with lstat, takes digests of unchanged files from the state
 * database, hashes the others, then builds the manifests bottom-up, each step on all cores (a status of 100k
 * unchanged files is mostly this walk). Symbolic links are entries, never followed. Sockets, pipes and devices are
 * left out with a warning.
 */
public final class TreeScanner {
  private static final int BUFFER_BYTES = 1 << 20;
  /** A name left out at every depth: the state folder of this or of a nested sync root, which no version may hold. */
  private static final String STATE_FOLDER_NAME = ".quarry";

  private final StateDatabase state;
  private final int hashThreads;
  private static final long PROGRESS_NANOS = 2_000_000_000L;

  private final Set<Path> excluded;
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
    this.excluded = Set.copyOf(excluded);
    this.ignored = ignored;
    this.progress = progress;
  }

  private sealed interface Node permits FileNode, DirNode, LinkNode {}

  private static final class FileNode implements Node {
    final String name;
    final Path path;
    final FileIdentity identity;
    volatile Digest digest;

    FileNode(String name, Path path, FileIdentity identity) {
      this.name = name;
      this.path = path;
      this.identity = identity;
    }
  }

  private record DirNode(String name, Path path, int mode, List<Node> children) implements Node {}

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
    // The state database loads while the folders are walked.
    CompletableFuture<Map<String, StateDatabase.FileState>> loading = Futures.async(() -> state.load(root));
    List<String> warnings = Collections.synchronizedList(new ArrayList<>());
    Queue<FileNode> walked = new ConcurrentLinkedQueue<>();
    try (ForkJoinPool pool = new ForkJoinPool(hashThreads)) {
      DirNode top = inPool(pool, new WalkTask("", "", root, rootIdentity.permissions(), walked, warnings));
      Map<String, StateDatabase.FileState> known = Futures.join(loading);
      List<FileNode> files = new ArrayList<>(walked);
      LongAdder recordedFound = new LongAdder();
      List<FileNode> toHash = inPool(pool, () -> files.parallelStream().filter(file -> {
        StateDatabase.FileState previous = known.get(file.path.toString());
        if (previous == null) {
          return true;
        }
        recordedFound.increment();
        FileIdentity identity = file.identity;
        if (previous.matches(identity.inode(), identity.mtimeNanos(), identity.size())) {
          file.digest = previous.digest();
          return false;
        }
        return true;
      }).toList());
      Map<String, StateDatabase.FileState> hashed = hash(toHash);
      state.record(hashed);
      if (recordedFound.sum() < known.size()) {
        Set<String> present = new HashSet<>(files.size() * 2);
        files.forEach(file -> present.add(file.path.toString()));
        state.forget(known.keySet().stream().filter(path -> !present.contains(path)).toList());
      }
      Map<Digest, Manifest> manifests = new ConcurrentHashMap<>();
      Map<Digest, Path> sources = new ConcurrentHashMap<>();
      LocalDirectory topDirectory = inPool(pool, new BuildTask(top, manifests, sources));
      long hashedBytes = hashed.values().stream().mapToLong(StateDatabase.FileState::size).sum();
      return new LocalTree(topDirectory, manifests, sources, hashed.size(), hashedBytes, warnings);
    }
  }

  /** Runs {@code task} in the scan's pool, where its forks and parallel streams run on all cores. */
  private static <T> T inPool(ForkJoinPool pool, ForkJoinTask<T> task) throws IOException {
    try {
      return pool.invoke(task);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  private static <T> T inPool(ForkJoinPool pool, Callable<T> task) throws IOException {
    return inPool(pool, ForkJoinTask.adapt(task));
  }

  private final class WalkTask extends RecursiveTask<DirNode> {
    private final String name;
    /** The folder's path relative to the top, with a trailing '/' unless it is the top. */
    private final String prefix;
    private final Path dir;
    private final int mode;
    private final Queue<FileNode> files;
    private final List<String> warnings;

    WalkTask(String name, String prefix, Path dir, int mode, Queue<FileNode> files, List<String> warnings) {
      this.name = name;
      this.prefix = prefix;
      this.dir = dir;
      this.mode = mode;
      this.files = files;
      this.warnings = warnings;
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

  private DirNode walk(WalkTask task) throws IOException {
    String name = task.name;
    Path dir = task.dir;
    int mode = task.mode;
    Queue<FileNode> files = task.files;
    List<String> warnings = task.warnings;
    List<Node> children = new ArrayList<>();
    List<WalkTask> subfolders = new ArrayList<>();
    List<Path> paths = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path path : entries) {
        if (!excluded.contains(path) && !path.getFileName().toString().equals(STATE_FOLDER_NAME)) {
          paths.add(path);
        }
      }
    }
    FileIdentity[] identities = lstat(paths);
    for (int i = 0; i < identities.length; i++) {
      Path path = paths.get(i);
      FileIdentity identity = identities[i];
      String childName = path.getFileName().toString();
      if (!identity.isDirectory() && PartFiles.isPartFile(childName)) {
        continue; // A killed pull's temporary: never part of a version.
      }
      if (!ignored.isEmpty() && ignored.ignoresItself(task.prefix + childName, identity.isDirectory())) {
        continue; // its folders were checked on the way down
      }
      if (identity.isDirectory()) {
        WalkTask subfolder = new WalkTask(childName, task.prefix + childName + "/", path, identity.permissions(),
            files, warnings);
        subfolder.fork();
        subfolders.add(subfolder);
      } else if (identity.isSymbolicLink()) {
        children.add(new LinkNode(childName, Files.readSymbolicLink(path).toString()));
      } else if (identity.isRegularFile()) {
        FileNode file = new FileNode(childName, path, identity);
        files.add(file);
        children.add(file);
      } else {
        warnings.add("Left out " + path + ": not a regular file, folder or symbolic link");
      }
    }
    for (WalkTask subfolder : subfolders) {
      children.add(subfolder.join());
    }
    return new DirNode(name, dir, mode, children);
  }

  /**
   * The lstat of each path, in order: on all cores of the scan's pool in a folder of more entries than one manifest
   * holds (a flat folder of a million files is one folder, so its walk would otherwise be one core's).
   */
  private static FileIdentity[] lstat(List<Path> paths) throws IOException {
    FileIdentity[] identities = new FileIdentity[paths.size()];
    IntStream indexes = IntStream.range(0, identities.length);
    if (Chunking.isChunked(identities.length)) {
      indexes = indexes.parallel();
    }
    indexes.forEach(i -> {
      try {
        identities[i] = FileIdentity.of(paths.get(i));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    return identities;
  }

  private Map<String, StateDatabase.FileState> hash(List<FileNode> files) throws IOException {
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
            hashed.put(file.path.toString(), new StateDatabase.FileState(identity.inode(), identity.mtimeNanos(),
                identity.size(), file.digest));
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
    try (FileChannel channel = FileChannel.open(file.path, StandardOpenOption.READ)) {
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
      throw new IOException("Cannot hash " + file.path + ": it changed while being read (" + file.identity.size()
          + " bytes before, " + length + " read); run again once nothing writes to it");
    }
    return Digest.of(sha256, length);
  }

  /** Builds a folder's manifest after its subfolders', which are built as forked tasks. */
  private static final class BuildTask extends RecursiveTask<LocalDirectory> {
    private final DirNode dir;
    private final Map<Digest, Manifest> manifests;
    private final Map<Digest, Path> sources;

    BuildTask(DirNode dir, Map<Digest, Manifest> manifests, Map<Digest, Path> sources) {
      this.dir = dir;
      this.manifests = manifests;
      this.sources = sources;
    }

    @Override
    protected LocalDirectory compute() {
      Map<String, BuildTask> subfolders = new HashMap<>();
      for (Node child : dir.children()) {
        if (child instanceof DirNode sub) {
          BuildTask task = new BuildTask(sub, manifests, sources);
          task.fork();
          subfolders.put(sub.name(), task);
        }
      }
      List<TreeEntry> entries = new ArrayList<>(dir.children().size());
      Map<String, LocalDirectory> subdirectories = new HashMap<>();
      for (Node child : dir.children()) {
        switch (child) {
          case FileNode file -> {
            entries.add(TreeEntry.file(file.name, file.identity.permissions(), file.digest));
            sources.putIfAbsent(file.digest, file.path);
          }
          case LinkNode link -> entries.add(TreeEntry.symlink(link.name(), link.target()));
          case DirNode sub -> {
            LocalDirectory built = subfolders.get(sub.name()).join();
            Manifest manifest = built.manifest();
            subdirectories.put(sub.name(), built);
            entries.add(TreeEntry.directory(sub.name(), sub.mode(), manifest.digest(), manifest.files(),
                manifest.bytes()));
          }
        }
      }
      Manifest manifest = Manifest.of(entries);
      manifests.putIfAbsent(manifest.digest(), manifest);
      return new LocalDirectory(dir.path(), manifest, subdirectories);
    }
  }
}
