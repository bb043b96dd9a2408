package dev.quarry.core.sync.pull;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.Amount;
import dev.quarry.core.sync.RunClock;
import dev.quarry.core.sync.SyncResult;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.TransferProgress;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.local.FileIdentity;
import dev.quarry.core.sync.local.StateDatabase;
import dev.quarry.core.sync.local.StateDatabase.FileState;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code quarry sync pull}: a version (ref or root digest) into the folder, whole or by include patterns. Every
 * downloaded byte is hashed and checked against its digest before it becomes visible; files appear by atomic rename,
 * so a reader sees the old file or the new one, never a part. Files already right are left alone. With a local cache
 * on the same filesystem, files are hard links to cached blobs, else copies. Local files not in the version are
 * deleted only when asked.
 */
public final class Pull {
  private static final int SAMPLES = 10;

  /** What to pull and how. {@code cache} null: no local cache. */
  public record Options(String version, List<String> include, boolean deleteExtra, Path cache) {
    public Options {
      include = List.copyOf(include);
    }
  }

  private final SyncSession session;
  private final ObjectStore store;
  private final Options options;
  private final Map<String, Exception> failures = new ConcurrentHashMap<>();
  private final Map<String, FileState> pulled = new ConcurrentHashMap<>();
  private final AtomicLong alreadyThere = new AtomicLong();
  private final Set<Path> createdFolders = ConcurrentHashMap.newKeySet();

  private Pull(SyncSession session, Options options) {
    this.session = session;
    this.store = session.remote().store();
    this.options = options;
  }

  public static SyncResult run(SyncSession session, Options options) throws IOException {
    return new Pull(session, options).pull();
  }

  private SyncResult pull() throws IOException {
    FileIdentity.requireUtf8FileNames();
    IncludeFilter filter = new IncludeFilter(options.include());
    RunClock clock = new RunClock(store);
    Manifest root = session.remote().resolveVersion(options.version());
    Selection selection = Selection.of(session.remote(), root, filter);
    session.log("pull: %s selects %d files (%d bytes) in %d folders; read %d manifests", options.version(),
        selection.files().size(), selection.bytes(), selection.folders().size(), selection.manifestsRead());
    Files.createDirectories(session.folder());
    StateDatabase state = session.state();
    Map<String, FileState> known = state.load(session.folder());
    List<Selection.File> toWrite = filesToWrite(selection.files(), known);
    Map<Digest, List<Selection.File>> byDigest = toWrite.stream()
        .collect(Collectors.groupingBy(Selection.File::digest, HashMap::new, Collectors.toList()));
    BlobCache cache = options.cache() != null ? new BlobCache(options.cache(), state) : null;
    Set<Digest> toDownload = new HashSet<>();
    for (Digest digest : byDigest.keySet()) {
      if (!digest.isEmpty() && (cache == null || !cache.has(digest))) {
        toDownload.add(digest);
      }
    }
    long downloadBytes = toDownload.stream().mapToLong(Digest::size).sum();
    TransferProgress progress = new TransferProgress(session, "pull", toDownload.size(), downloadBytes);
    forEach(byDigest.entrySet(),
        group -> writeGroup(group.getKey(), group.getValue(), toDownload.contains(group.getKey()), cache, progress));
    if (cache != null) {
      cache.recordState();
    }
    progress.print(true);
    writeLinks(selection.links());
    if (options.deleteExtra()) {
      deleteExtra(selection, filter);
    }
    applyFolderModes(selection.folders());
    state.record(pulled);
    if (!failures.isEmpty()) {
      session.index().clear();
      throw new IOException("Cannot pull " + options.version() + ": " + failures.size() + " files failed (first: "
          + samples().get(0) + "); nothing corrupt was written, and pull again fetches only what is missing");
    }
    session.log("pull: %d files written, %d already there", pulled.size(), alreadyThere.get());
    return new SyncResult("pull", session.remote().url(), options.version(), root.digest().text(),
        selection.files().size() + selection.links().size(), selection.bytes(), 0, null, null, progress.moved(), null,
        null, clock.requests(), null, null, 0, List.of(), List.of(), clock.startTime(), clock.now(),
        clock.elapsedSeconds());
  }

  /** The selected files whose content is not already at their path: by the state database, else by hashing. */
  private List<Selection.File> filesToWrite(List<Selection.File> files, Map<String, FileState> known)
      throws IOException {
    List<Selection.File> toWrite = java.util.Collections.synchronizedList(new ArrayList<>());
    forEach(files, file -> {
      Path path = destination(file.path());
      FileIdentity identity;
      try {
        identity = FileIdentity.of(path);
      } catch (NoSuchFileException e) {
        toWrite.add(file);
        return;
      }
      FileState state = known.get(path.toString());
      boolean same = identity.isRegularFile() && identity.size() == file.digest().size()
          && (state != null && state.matches(identity.inode(), identity.mtimeNanos(), identity.size())
              ? state.digest().equals(file.digest())
              : Digest.ofFile(path).equals(file.digest()));
      if (same) {
        alreadyThere.incrementAndGet();
        if (identity.permissions() != file.mode()) {
          Files.setPosixFilePermissions(path, FileIdentity.permissionSet(file.mode()));
        }
        pulled.put(path.toString(), new FileState(identity.inode(), identity.mtimeNanos(), identity.size(),
            file.digest()));
      } else {
        toWrite.add(file);
      }
    });
    return toWrite;
  }

  /**
   * Writes one content at every path that wants it. Without a cache the blob is downloaded straight into the first
   * path's temporary sibling and the other paths are copies of the first; with a cache, into the cache, and every
   * path is a hard link to it. A download that fails fails all of the content's paths at once.
   */
  private void writeGroup(Digest digest, List<Selection.File> files, boolean download, BlobCache cache,
      TransferProgress progress) throws IOException {
    Path cached = cache != null && !digest.isEmpty() ? cache.path(digest) : null;
    if (download && cache != null) {
      Path temp = cache.tempFolder().resolve(UUID.randomUUID() + ".part");
      try {
        downloadTo(temp, digest, FileIdentity.permissionSet(0644), progress);
        cache.adopt(digest, temp);
      } catch (IOException e) {
        files.forEach(file -> failures.put(file.path(), e));
        return;
      }
    }
    Path first = null;
    for (Selection.File file : files) {
      Path target = destination(file.path());
      Path staged = stagedSibling(target);
      Set<PosixFilePermission> permissions = FileIdentity.permissionSet(file.mode());
      try {
        createParent(target);
        if (digest.isEmpty()) {
          Files.createFile(staged, PosixFilePermissions.asFileAttribute(permissions));
        } else if (cached != null) {
          linkOrCopy(cached, staged);
        } else if (first != null) {
          Files.copy(first, staged);
        } else {
          try {
            downloadTo(staged, digest, permissions, progress);
          } catch (IOException e) {
            files.forEach(each -> failures.put(each.path(), e));
            return;
          }
        }
        publish(staged, target, file.mode(), digest);
        first = first != null ? first : target;
      } catch (IOException e) {
        Files.deleteIfExists(staged);
        failures.put(file.path(), e);
      }
    }
  }

  /** Downloads a blob into a new file, hashing every byte; deletes the file unless it matches its digest. */
  private void downloadTo(Path file, Digest digest, Set<PosixFilePermission> permissions, TransferProgress progress)
      throws IOException {
    String key = session.remote().layout().blobKey(digest);
    MessageDigest sha256 = Digest.sha256();
    long length = 0;
    try (InputStream in = store.get(key); OutputStream out = Channels.newOutputStream(Files.newByteChannel(file,
        Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
        PosixFilePermissions.asFileAttribute(permissions)))) {
      byte[] buffer = new byte[(int) Math.min(256 << 10, Math.max(8 << 10, digest.size()))];
      for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
        sha256.update(buffer, 0, read);
        out.write(buffer, 0, read);
        length += read;
      }
    } catch (NoSuchObjectException e) {
      Files.deleteIfExists(file);
      throw new IOException(store.url(key) + " is missing from the remote (push the version again)", e);
    } catch (IOException e) {
      Files.deleteIfExists(file);
      throw e;
    }
    Digest actual = Digest.of(sha256, length);
    if (!actual.equals(digest)) {
      Files.deleteIfExists(file);
      throw new IOException(store.url(key) + " is corrupt: its bytes hash to " + actual + ", not " + digest
          + " (push the version again to repair it)");
    }
    progress.done(length);
  }

  /**
   * Renames a finished file over its target. A folder standing there is replaced only with deleteExtra. The file's
   * mode is set at creation; it is changed afterwards only if the umask took bits away.
   */
  private void publish(Path staged, Path target, int mode, Digest digest) throws IOException {
    moveIntoPlace(staged, target);
    FileIdentity identity = FileIdentity.of(target);
    if (identity.permissions() != mode) {
      Files.setPosixFilePermissions(target, FileIdentity.permissionSet(mode));
    }
    pulled.put(target.toString(), new FileState(identity.inode(), identity.mtimeNanos(), identity.size(), digest));
  }

  /** Renames a file or link over its target; a folder standing there is replaced only with deleteExtra. */
  private void moveIntoPlace(Path staged, Path target) throws IOException {
    try {
      Files.move(staged, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      if (!Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
        throw e;
      }
      if (!options.deleteExtra()) {
        throw new IOException("Cannot write " + target + ": a folder is in the way (pull with deleteExtra to"
            + " replace it)");
      }
      deleteTree(target);
      Files.move(staged, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** A temporary name beside {@code target}, so the final rename stays within one folder. */
  private static Path stagedSibling(Path target) {
    return target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".quarry-part");
  }

  /** Creates a file's parent folders, once per folder. */
  private void createParent(Path target) throws IOException {
    Path parent = target.getParent();
    // Remembered only once it exists: a thread that found it in the set must be able to write into it at once.
    if (!createdFolders.contains(parent)) {
      Files.createDirectories(parent);
      createdFolders.add(parent);
    }
  }

  private void writeLinks(List<Selection.Link> links) {
    for (Selection.Link link : links) {
      Path target = destination(link.path());
      try {
        if (Files.isSymbolicLink(target) && Files.readSymbolicLink(target).toString().equals(link.target())) {
          continue;
        }
        createParent(target);
        Path staged = stagedSibling(target);
        Files.createSymbolicLink(staged, Path.of(link.target()));
        moveIntoPlace(staged, target);
      } catch (IOException e) {
        failures.put(link.path(), e);
      }
    }
  }

  private void deleteExtra(Selection selection, IncludeFilter filter) throws IOException {
    Set<String> wanted = new HashSet<>();
    selection.files().forEach(file -> wanted.add(file.path()));
    selection.links().forEach(link -> wanted.add(link.path()));
    selection.folders().forEach(folder -> wanted.add(folder.path()));
    for (String path : wanted.toArray(String[]::new)) {
      for (int slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) {
        wanted.add(path.substring(0, slash));
      }
    }
    Path root = session.folder();
    List<Path> extra;
    try (Stream<Path> walk = Files.walk(root)) {
      extra = walk.filter(path -> !path.equals(root) && !path.startsWith(session.stateFolder()))
          .filter(path -> {
            String relative = root.relativize(path).toString();
            return !wanted.contains(relative) && filter.matches(relative);
          })
          .sorted(Comparator.reverseOrder()).toList();
    }
    for (Path path : extra) {
      if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
        deleteTree(path);
      }
    }
    if (!extra.isEmpty()) {
      session.log("pull: deleted %d paths not in the version", extra.size());
    }
  }

  private void applyFolderModes(List<Selection.Folder> folders) throws IOException {
    for (Selection.Folder folder : folders) {
      Path path = destination(folder.path());
      Files.createDirectories(path);
      Files.setPosixFilePermissions(path, FileIdentity.permissionSet(folder.mode()));
    }
  }

  private Path destination(String relative) {
    return session.folder().resolve(relative);
  }

  private static void linkOrCopy(Path cached, Path staged) throws IOException {
    try {
      Files.createLink(staged, cached);
    } catch (FileSystemException | UnsupportedOperationException e) {
      // The cache is on another filesystem (EXDEV) or one without hard links: a copy gives the same bytes.
      Files.copy(cached, staged);
    }
  }

  private static void deleteTree(Path path) throws IOException {
    if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
      try (Stream<Path> walk = Files.walk(path)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    } else {
      Files.deleteIfExists(path);
    }
  }

  private <T> void forEach(java.util.Collection<T> items, InFlight.Task<T> task) throws IOException {
    try {
      Map<T, Exception> failed = InFlight.forEach(items, session.remote().inFlight(), task);
      failed.forEach((item, e) -> failures.put(String.valueOf(item), e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while pulling");
    }
  }

  private List<String> samples() {
    return failures.entrySet().stream().limit(SAMPLES).map(e -> e.getKey() + ": " + e.getValue().getMessage())
        .toList();
  }
}
