package dev.quarry.core.sync.pull;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.fs.ConfinedFolder;
import dev.quarry.core.fs.Umask;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.Amount;
import dev.quarry.core.sync.RunClock;
import dev.quarry.core.sync.SyncResult;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.TransferProgress;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.cas.TreeObject;
import dev.quarry.core.sync.local.FileIdentity;
import dev.quarry.core.sync.local.IgnoreRules;
import dev.quarry.core.sync.local.PartFiles;
import dev.quarry.core.sync.local.FileClock;
import dev.quarry.core.sync.local.StateDatabase;
import dev.quarry.core.sync.local.StateDatabase.FileState;
import dev.quarry.core.units.Counted;
import dev.quarry.core.sync.remote.VersionPath;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
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
 * {@code quarry sync pull}: a version (ref or root digest) into the folder, whole or by include patterns. The remote
 * is trusted for nothing: the selected tree is checked whole before anything is written ({@link Selection}), every
 * read is bounded by its digest's size, and every path is resolved by {@link ConfinedFolder}, so nothing is written,
 * created or chmod-ed through a symbolic link. Every downloaded byte is hashed and checked against its digest before
 * it becomes visible; files appear by atomic rename, so a reader sees the old file or the new one, never a part.
 * Files already right are left alone; a local edit (a file that is neither the new content nor the one last synced)
 * is replaced only when forced. With a local cache on the same filesystem, read-only files are hard links to cached
 * blobs, others copies. Local files not in the version are deleted only when asked, and only those the walk before
 * the downloads listed, each only while it is as listed then ({@link #deleteListed}).
 */
public final class Pull {
  private static final int SAMPLES = 10;

  /**
   * What to pull and how. {@code cache} null: no local cache. {@code path}: the folder of the version to write into
   * the folder ("" for the whole version; {@code sync get} pulls a subtree this way).
   */
  public record Options(String version, List<String> include, boolean deleteExtra, Path cache, boolean force,
      String path) {
    public Options {
      include = List.copyOf(include);
    }

    public Options(String version, List<String> include, boolean deleteExtra, Path cache, boolean force) {
      this(version, include, deleteExtra, cache, force, "");
    }

    /** Without force: local edits are never replaced. */
    public Options(String version, List<String> include, boolean deleteExtra, Path cache) {
      this(version, include, deleteExtra, cache, false);
    }
  }

  private final SyncSession session;
  private final VersionSource source;
  private final ObjectStore store;
  private final Options options;
  private final Map<String, Exception> failures = new ConcurrentHashMap<>();
  private final Map<String, FileState> pulled = new ConcurrentHashMap<>();
  /** Taken before local files are looked at: rows of files found already right are stamped by it (FileClock). */
  private FileClock.Horizon reading;
  private final AtomicLong alreadyThere = new AtomicLong();
  private final ConfinedFolder target;
  /** Folders given their owner's write bit for this pull, with the permissions to give back at its end. */
  private final Map<Path, Set<PosixFilePermission>> opened = new ConcurrentHashMap<>();
  private final Set<String> writable = ConcurrentHashMap.newKeySet();
  /** Only the refusals: nothing is read from the source but its trees, nothing is written. */
  private final boolean checkOnly;
  /** What a {@link #check} of this pull found, or null: the run walks the folder itself. */
  private final Checked checked;
  /** What --delete-extra deletes, as its walk found it, deepest first: set before anything is written. */
  private volatile List<Extra> extra = List.of();
  /** The state database's rows under the folder when the pull began. */
  private volatile Map<String, FileState> known = Map.of();

  /**
   * A local path the version lacks, and its identity when the walk listed it: --delete-extra deletes it only while it
   * is still so (a folder: once empty; a file that changed since: once checked again), never what appeared since.
   */
  private record Extra(Path path, FileIdentity identity) {}

  /**
   * What a {@link #check} found that a run of the same pull takes instead of walking the folder again: the local paths
   * --delete-extra deletes (those the version lacks, found before any content is read, as a pull from a Quarry remote
   * finds them before its downloads), deepest first, each with its identity then.
   */
  public static final class Checked {
    private final List<Extra> extra;

    private Checked(List<Extra> extra) {
      this.extra = List.copyOf(extra);
    }
  }

  private Pull(SyncSession session, VersionSource source, Options options, boolean checkOnly, Checked checked) {
    this.session = session;
    this.source = source;
    this.store = session.remote().store();
    this.options = options;
    this.target = new ConfinedFolder(session.folder());
    this.checkOnly = checkOnly;
    this.checked = checked;
  }

  public static SyncResult run(SyncSession session, Options options) throws IOException {
    return run(session, VersionSource.of(session), options);
  }

  /** Pulls from another source than the session's remote (a DVC remote's version); the session's store is counted. */
  public static SyncResult run(SyncSession session, VersionSource source, Options options) throws IOException {
    return new Pull(session, source, options, false, null).pull().result();
  }

  /**
   * Pulls after a {@link #check} of the same pull (the same paths: only digests the check stood in for may differ),
   * taking what it found instead of walking the folder again.
   */
  public static SyncResult run(SyncSession session, VersionSource source, Options options, Checked checked)
      throws IOException {
    return new Pull(session, source, options, false, checked).pull().result();
  }

  /**
   * Throws what {@link #run} would refuse before writing anything (the tree's rules, the state folder, local edits,
   * paths in the way, --delete-extra's local edits), and does nothing else: a source that must fetch blobs before it
   * can name them all (a DVC remote's) asks this first, with a stand-in digest for each content it lacks. Only the
   * answer "already there" needs the real digest, and a stand-in never gets it.
   */
  public static Checked check(SyncSession session, VersionSource source, Options options) throws IOException {
    return new Pull(session, source, options, true, null).pull().checked();
  }

  /** A run's result, or a check's findings. */
  private record Outcome(SyncResult result, Checked checked) {}

  private Outcome pull() throws IOException {
    FileIdentity.requireUtf8FileNames();
    String stateInside = session.stateInFolder();
    if (options.cache() != null && session.isSyncedPath(options.cache())) {
      throw new IllegalArgumentException("Invalid cache folder: " + options.cache().toAbsolutePath().normalize()
          + " (must not lie in the folder pulled into, unless in its state folder)");
    }
    IncludeFilter filter = new IncludeFilter(options.include());
    RunClock clock = new RunClock(store);
    TreeObject root = subtree(source.root(options.version()));
    Selection selection = Selection.of(source.trees(), root, filter, options.version(), reservedPaths(stateInside));
    if (!checkOnly) {
      session.log("pull: %s selects %s (%s) in %s; read %s", options.version(),
          Counted.of(selection.files().size(), "file"), Counted.of(selection.bytes(), "byte"),
          Counted.of(selection.folders().size(), "folder"), Counted.of(selection.manifestsRead(), "manifest"));
    }
    Files.createDirectories(session.folder());
    StateDatabase state = session.state();
    known = state.load(session.folder());
    reading = state.clock().beforeLooking(session.folder());
    extra = !options.deleteExtra() ? List.of()
        : checked != null ? checked.extra : extraPaths(selection, filter, known, stateInside);
    List<Selection.File> toWrite = filesToWrite(selection, known);
    if (checkOnly) {
      return new Outcome(null, new Checked(extra));
    }
    Map<Digest, List<Selection.File>> byDigest = toWrite.stream()
        .collect(Collectors.groupingBy(Selection.File::digest, HashMap::new, Collectors.toList()));
    BlobCache cache = options.cache() != null ? new BlobCache(options.cache(), state) : null;
    Set<Digest> toDownload = new HashSet<>();
    for (Digest digest : byDigest.keySet()) {
      if (!digest.isEmpty() && (cache == null || !cache.has(digest))) {
        toDownload.add(digest);
      }
    }
    removeStaleTemporaries(toWrite, selection.links());
    long downloadBytes = toDownload.stream().mapToLong(Digest::size).sum();
    TransferProgress progress = new TransferProgress(session, "pull", toDownload.size(), downloadBytes);
    forEach(byDigest.entrySet(),
        group -> writeGroup(group.getKey(), group.getValue(), toDownload.contains(group.getKey()), cache, progress));
    if (cache != null) {
      cache.recordState();
    }
    progress.print(true);
    writeLinks(selection.links());
    Set<String> editedMeanwhile = failures.isEmpty() ? deleteExtra() : Set.of();
    closeOpened();
    if (failures.isEmpty()) {
      applyFolderModes(selection.folders());
    } else {
      target.deleteEmptyCreated(); // a failed pull adds no empty folders; what it wrote stays, verified
    }
    state.record(pulled);
    if (!failures.isEmpty()) {
      source.failed();
      throw new IOException("Cannot pull " + options.version() + ": " + failures.size() + " files failed (first: "
          + samples().get(0) + "); nothing corrupt was written, and pull again fetches only what is missing");
    }
    if (!editedMeanwhile.isEmpty()) {
      throw new IllegalStateException(deleteRefusal(editedMeanwhile, "edited while the pull ran: the version is"
          + " written, nothing was deleted; "));
    }
    session.log("pull: %s written, %d already there", Counted.of(pulled.size() - alreadyThere.get(), "file"),
        alreadyThere.get());
    return new Outcome(new SyncResult("pull", source.url(), options.version(), root.digest().text(),
        selection.files().size() + selection.links().size(), selection.bytes(), 0, null, null, progress.moved(), null,
        null, clock.requests(), null, null, 0, List.of(), List.of(), clock.startTime(), clock.now(),
        clock.elapsedSeconds()), null);
  }

  /** The folder of the version that {@link Options#path()} names; the root itself when that is empty. */
  private TreeObject subtree(TreeObject root) throws IOException {
    if (options.path().isEmpty()) {
      return root;
    }
    VersionPath found = VersionPath.find(session.remote(), root, options.version(), options.path());
    if (!found.isFolder()) {
      throw new IllegalArgumentException("Cannot pull " + TreeEntry.printable(options.path()) + " of "
          + options.version() + " as a folder: it is a " + found.entry().type().token());
    }
    return found.folder();
  }

  /** Relative paths no version may write: the default state folder, and the state folder if it is inside. */
  private static Set<String> reservedPaths(String stateInside) {
    Set<String> reserved = new HashSet<>(Set.of(SyncSession.DEFAULT_STATE_FOLDER));
    if (stateInside != null) {
      reserved.add(stateInside);
    }
    return reserved;
  }

  /**
   * Whether a relative path is, holds or lies in a state folder: the state folder, a folder on its way, or a
   * {@code .quarry} at any depth (the state of a nested sync root). --delete-extra never deletes these.
   */
  private static boolean isStateOrHoldsIt(String relative, String stateInside) {
    if (("/" + relative + "/").contains("/" + SyncSession.DEFAULT_STATE_FOLDER + "/")) {
      return true;
    }
    return stateInside != null && (relative.equals(stateInside) || relative.startsWith(stateInside + "/")
        || stateInside.startsWith(relative + "/"));
  }

  /**
   * The selected files whose content is not already at their path: by the state database, else by hashing. Nothing
   * is read through a link: a file behind one on the way is simply to be written. Refuses, before anything is
   * changed, to replace a file whose content is neither the new one nor the one last synced (a local edit), unless
   * forced; and, without deleteExtra, to replace a local folder where the version has a file or link, or a local
   * file where it has a folder.
   */
  private List<Selection.File> filesToWrite(Selection selection, Map<String, FileState> known) throws IOException {
    List<Selection.File> toWrite = java.util.Collections.synchronizedList(new ArrayList<>());
    Map<Selection.File, FileIdentity> modesToFix = new ConcurrentHashMap<>();
    Set<String> edited = ConcurrentHashMap.newKeySet();
    Set<String> blocked = ConcurrentHashMap.newKeySet();
    Map<Selection.File, Exception> unchecked = check(selection.files(), file -> {
      ConfinedFolder.Way way = target.wayTo(file.path());
      if (way != ConfinedFolder.Way.CLEAR) {
        if (way == ConfinedFolder.Way.BLOCKED) {
          fileInTheWay(file.path(), blockingFile(file.path()), blocked, edited, known);
        }
        toWrite.add(file);
        return;
      }
      Path path = target.resolve(file.path());
      FileIdentity identity;
      try {
        identity = FileIdentity.of(path);
      } catch (NoSuchFileException e) {
        toWrite.add(file);
        return;
      }
      if (!identity.isRegularFile()) {
        if (identity.isDirectory() && !options.deleteExtra()) {
          blocked.add(file.path());
        }
        toWrite.add(file); // a link is replaced; a folder only with deleteExtra
        return;
      }
      FileState state = known.get(path.toString());
      Digest local = state != null && state.matches(identity.inode(), identity.mtimeNanos(), identity.size())
          ? state.digest() : identity.size() == file.digest().size() ? Digest.ofFile(path) : null;
      if (file.digest().equals(local)) {
        alreadyThere.incrementAndGet();
        if (identity.permissions() != Umask.apply(file.mode())) {
          modesToFix.put(file, identity);
        } else {
          pulled.put(path.toString(), reading.toRecord(new FileState(identity.inode(), identity.mtimeNanos(),
              identity.size(), file.digest(), true)));
        }
        return;
      }
      if (!options.force() && !isSynced(path, identity, state, local)) {
        edited.add(file.path());
      }
      toWrite.add(file);
    });
    if (!unchecked.isEmpty()) {
      var first = unchecked.entrySet().stream().min(Map.Entry.comparingByKey(
          Comparator.comparing(Selection.File::path))).orElseThrow();
      Exception e = first.getValue();
      String reason = e instanceof FileSystemException f && f.getReason() != null ? f.getReason() : e.getMessage();
      throw new IOException("Cannot pull " + options.version() + ": " + unchecked.size() + " local files could not"
          + " be checked against the version (first: " + TreeEntry.printable(first.getKey().path()) + ", mode "
          + String.format("%04o", first.getKey().mode()) + ": " + reason + "); nothing was written");
    }
    for (Selection.Link link : selection.links()) {
      if (!options.deleteExtra() && isBlocked(link.path())) {
        blocked.add(link.path());
      } else if (target.wayTo(link.path()) == ConfinedFolder.Way.BLOCKED) {
        fileInTheWay(link.path(), blockingFile(link.path()), blocked, edited, known);
      }
      if (!options.force() && isEditedFile(link.path(), known)) {
        edited.add(link.path());
      }
    }
    for (Selection.Folder folder : selection.folders()) {
      ConfinedFolder.Way way = target.wayTo(folder.path());
      if (way == ConfinedFolder.Way.BLOCKED) {
        fileInTheWay(folder.path(), blockingFile(folder.path()), blocked, edited, known);
      } else if (way == ConfinedFolder.Way.CLEAR && isLocalFile(folder.path())) {
        fileInTheWay(folder.path(), folder.path(), blocked, edited, known);
      }
    }
    if (!edited.isEmpty()) {
      throw new IllegalStateException("Cannot pull " + options.version() + ": " + edited.size() + " local files differ"
          + " from both the version they came from and the new one: " + listed(edited)
          + " (pull with --force to replace them)");
    }
    if (!blocked.isEmpty()) {
      throw new IllegalStateException("Cannot pull " + options.version() + ": " + blocked.size() + " paths of the"
          + " version have a local folder or file in the way: " + listed(blocked)
          + " (pull with --delete-extra to replace them)");
    }
    if (checkOnly) {
      return toWrite;
    }
    for (Map.Entry<Selection.File, FileIdentity> fix : modesToFix.entrySet()) {
      fixMode(fix.getKey(), fix.getValue(), toWrite);
    }
    return toWrite;
  }

  /**
   * A local file ({@code blocker}) stands where the version needs a folder for {@code path}: refused without
   * deleteExtra; with it, still refused unless forced when the file is a local edit, as --delete-extra's own deletions
   * are.
   */
  private void fileInTheWay(String path, String blocker, Set<String> blocked, Set<String> edited,
      Map<String, FileState> known) throws IOException {
    if (!options.deleteExtra()) {
      blocked.add(path);
    } else if (!options.force() && isEditedFile(blocker, known)) {
      edited.add(blocker);
    }
  }

  /** The local file on a blocked way to {@code relative}: the nearest folder on the way whose own way is clear. */
  private String blockingFile(String relative) throws IOException {
    String parent = ConfinedFolder.parentOf(relative);
    while (target.wayTo(parent) != ConfinedFolder.Way.CLEAR) {
      parent = ConfinedFolder.parentOf(parent);
    }
    return parent;
  }

  /** Whether something other than a folder or a link stands at {@code relative}, whose way is clear. */
  private boolean isLocalFile(String relative) throws IOException {
    try {
      FileIdentity identity = FileIdentity.of(target.resolve(relative));
      return !identity.isDirectory() && !identity.isSymbolicLink();
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  /** Whether a local file that a link of the version would replace is a local edit (not as last synced). */
  private boolean isEditedFile(String relative, Map<String, FileState> known) throws IOException {
    if (target.wayTo(relative) != ConfinedFolder.Way.CLEAR) {
      return false;
    }
    Path path = target.resolve(relative);
    FileIdentity identity;
    try {
      identity = FileIdentity.of(path);
    } catch (NoSuchFileException e) {
      return false;
    }
    return identity.isRegularFile() && !isSynced(path, identity, known.get(path.toString()), null);
  }

  /** Whether a local folder stands where a link goes, or a file where a folder of its way goes. */
  private boolean isBlocked(String path) throws IOException {
    ConfinedFolder.Way way = target.wayTo(path);
    if (way != ConfinedFolder.Way.CLEAR) {
      return way == ConfinedFolder.Way.BLOCKED;
    }
    return Files.isDirectory(target.resolve(path), LinkOption.NOFOLLOW_LINKS);
  }

  /** The first few of these paths, sorted and printable, and how many more. */
  private static String listed(Set<String> paths) {
    List<String> sorted = paths.stream().sorted().toList();
    return sorted.stream().limit(SAMPLES).map(TreeEntry::printable).collect(Collectors.joining(", "))
        + (sorted.size() > SAMPLES ? " and " + (sorted.size() - SAMPLES) + " more" : "");
  }

  /** Whether a local file holds the content a pull wrote there or a push sent from there: no local edit. */
  private static boolean isSynced(Path path, FileIdentity identity, FileState state, Digest local)
      throws IOException {
    if (state == null || !state.synced() || identity.size() != state.digest().size()) {
      return false;
    }
    return state.digest().equals(local != null ? local : Digest.ofFile(path));
  }

  /**
   * Gives a file that is already right its mode. A file with other hard links (a cached blob, or a user's link) is
   * written again instead, so the change cannot reach another name's mode.
   */
  private void fixMode(Selection.File file, FileIdentity identity, List<Selection.File> toWrite) throws IOException {
    Path path = target.resolve(file.path());
    if ((Integer) Files.getAttribute(path, "unix:nlink", LinkOption.NOFOLLOW_LINKS) > 1) {
      alreadyThere.decrementAndGet();
      toWrite.add(file);
      return;
    }
    Files.setPosixFilePermissions(path, FileIdentity.permissionSet(Umask.apply(file.mode())));
    pulled.put(path.toString(), reading.toRecord(new FileState(identity.inode(), identity.mtimeNanos(),
        identity.size(), file.digest(), true)));
  }

  /**
   * Writes one content at every path that wants it. Without a cache the blob is downloaded straight into the first
   * path's temporary sibling and the other paths are copies of the first; with a cache, into the cache, and every
   * path whose mode is the cached blob's, read-only, is a hard link to it (others are copies: linked names share one
   * mode and one content, so a writable file is never linked). A
   * download that fails fails all of the content's paths at once.
   */
  private void writeGroup(Digest digest, List<Selection.File> files, boolean download, BlobCache cache,
      TransferProgress progress) throws IOException {
    Path cached = cache != null && !digest.isEmpty() ? cache.path(digest) : null;
    if (download && cache != null) {
      Path temp = cache.tempFolder().resolve(UUID.randomUUID() + ".part");
      try {
        downloadTo(temp, digest, FileIdentity.permissionSet(0600), progress);
        cache.adopt(digest, temp);
      } catch (IOException e) {
        files.forEach(file -> failures.put(file.path(), e));
        return;
      }
    }
    int cachedMode = cached != null ? FileIdentity.of(cached).permissions() : -1;
    Path first = null;
    for (Selection.File file : files) {
      Path staged = null;
      int mode = Umask.apply(file.mode());
      Set<PosixFilePermission> permissions = FileIdentity.permissionSet(mode);
      try {
        Path path = writableParentReady(file.path());
        staged = stagedSibling(path);
        if (digest.isEmpty()) {
          Files.createFile(staged, PosixFilePermissions.asFileAttribute(permissions));
        } else if (cached != null) {
          linkOrCopy(cached, staged, cachedMode == mode && mode == BlobCache.BLOB_MODE);
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
        publish(staged, path, mode, digest);
        first = first != null ? first : path;
      } catch (IOException e) {
        if (staged != null) {
          Files.deleteIfExists(staged);
        }
        failures.put(file.path(), e);
      }
    }
  }

  /**
   * Makes {@code relative}'s parent a real folder, as {@link ConfinedFolder#parentReady}, and every folder on its way
   * writable by its owner, one at a time before the next is created in it: a folder a version made read-only (0555)
   * would block every later pull into it. {@link #closeOpened} gives the folders their permissions back.
   */
  private Path writableParentReady(String relative) throws IOException {
    int slash = relative.lastIndexOf('/');
    String parent = slash < 0 ? "" : relative.substring(0, slash);
    if (!parent.isEmpty() && !writable.contains(parent)) {
      for (int next = parent.indexOf('/'); ; next = parent.indexOf('/', next + 1)) {
        String folder = next < 0 ? parent : parent.substring(0, next);
        if (!writable.contains(folder)) {
          openForWriting(target.folder(folder, options.deleteExtra()));
          writable.add(folder);
        }
        if (next < 0) {
          break;
        }
      }
    }
    return target.parentReady(relative, options.deleteExtra());
  }

  private synchronized void openForWriting(Path folder) throws IOException {
    Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(folder, LinkOption.NOFOLLOW_LINKS);
    if (!permissions.contains(PosixFilePermission.OWNER_WRITE)
        || !permissions.contains(PosixFilePermission.OWNER_EXECUTE)) {
      opened.putIfAbsent(folder, Set.copyOf(permissions));
      Set<PosixFilePermission> open = java.util.EnumSet.copyOf(permissions);
      open.add(PosixFilePermission.OWNER_WRITE);
      open.add(PosixFilePermission.OWNER_EXECUTE);
      Files.setPosixFilePermissions(folder, open);
    }
  }

  /** Gives the folders opened for writing their permissions back (those still there, still folders). */
  private void closeOpened() throws IOException {
    for (Map.Entry<Path, Set<PosixFilePermission>> folder : opened.entrySet()) {
      if (Files.isDirectory(folder.getKey(), LinkOption.NOFOLLOW_LINKS)) {
        Files.setPosixFilePermissions(folder.getKey(), folder.getValue());
      }
    }
    opened.clear();
    writable.clear();
  }

  /** Downloads a blob into a new file, verified ({@link VersionSource#blobToFile}); counts it as moved. */
  private void downloadTo(Path file, Digest digest, Set<PosixFilePermission> permissions, TransferProgress progress)
      throws IOException {
    progress.done(source.blobToFile(digest, file, permissions));
  }

  /**
   * Gives a finished file its mode (the version's less the umask), if creating it took other bits away (a linked file has it already, so a link's mode is
   * never changed), and renames it over its target.
   */
  private void publish(Path staged, Path path, int mode, Digest digest) throws IOException {
    FileIdentity identity = FileIdentity.of(staged);
    if (identity.permissions() != mode) {
      Files.setPosixFilePermissions(staged, FileIdentity.permissionSet(mode));
    }
    moveIntoPlace(staged, path);
    pulled.put(path.toString(), new FileState(identity.inode(), identity.mtimeNanos(), identity.size(), digest, true));
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
      this.target.forgetUnder(target);
      deleteFolderInTheWay(target);
      Files.move(staged, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static Path stagedSibling(Path target) {
    return PartFiles.beside(target);
  }

  /**
   * Deletes the temporaries a killed pull left in the folders this pull writes into, before it writes: only real
   * folders inside the target are listed, and only files and links named as pull names its temporaries are deleted.
   */
  private void removeStaleTemporaries(List<Selection.File> files, List<Selection.Link> links) throws IOException {
    Set<String> paths = new HashSet<>();
    files.forEach(file -> paths.add(file.path()));
    links.forEach(link -> paths.add(link.path()));
    Set<String> folders = new HashSet<>();
    for (String path : paths) {
      String folder = ConfinedFolder.parentOf(path);
      if (folders.add(folder) && target.wayTo(path) == ConfinedFolder.Way.CLEAR
          && Files.isDirectory(target.resolve(folder), LinkOption.NOFOLLOW_LINKS)) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(target.resolve(folder),
            entry -> PartFiles.isPartFile(entry.getFileName().toString()))) {
          for (Path entry : entries) {
            if (!Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
              Files.deleteIfExists(entry);
            }
          }
        }
      }
    }
  }

  private void writeLinks(List<Selection.Link> links) {
    for (Selection.Link link : links) {
      try {
        Path path = writableParentReady(link.path());
        if (Files.isSymbolicLink(path) && Files.readSymbolicLink(path).toString().equals(link.target())) {
          continue;
        }
        Path staged = stagedSibling(path);
        Files.createSymbolicLink(staged, Path.of(link.target()));
        moveIntoPlace(staged, path);
      } catch (IOException e) {
        failures.put(link.path(), e);
      }
    }
  }

  /**
   * The local paths within the included ones that the version lacks, deepest first; the state folders are never
   * among them. Refuses, before anything is changed, when one is a local edit (a file not as last synced), unless
   * forced: --delete-extra deletes what a pull or push put there, not a person's work.
   */
  private List<Extra> extraPaths(Selection selection, IncludeFilter filter, Map<String, FileState> known,
      String stateInside) throws IOException {
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
    IgnoreRules rules = session.ignoreRules();
    Set<String> keptIgnored = new HashSet<>();
    List<Path> candidates = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(root)) {
      walk.filter(path -> !path.equals(root)).forEach(path -> {
        String relative = root.relativize(path).toString();
        if (!rules.isEmpty() && rules.ignores(relative, Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS))) {
          keepWithItsFolders(relative, keptIgnored);
        } else if (!wanted.contains(relative) && filter.matches(relative)
            && !isStateOrHoldsIt(relative, stateInside)) {
          candidates.add(path);
        }
      });
    }
    List<Extra> extra = new ArrayList<>();
    Set<String> edited = new HashSet<>();
    for (Path path : candidates.stream().filter(path -> !keptIgnored.contains(root.relativize(path).toString()))
        .sorted(Comparator.reverseOrder()).toList()) {
      FileIdentity identity;
      try {
        identity = FileIdentity.of(path);
      } catch (NoSuchFileException e) {
        continue; // gone since the walk: nothing to delete
      }
      extra.add(new Extra(path, identity));
      if (!options.force() && identity.isRegularFile()
          && !isSynced(path, identity, known.get(path.toString()), null)) {
        edited.add(root.relativize(path).toString());
      }
    }
    if (!edited.isEmpty()) {
      throw new IllegalStateException(deleteRefusal(edited, ""));
    }
    return extra;
  }

  /** --delete-extra's refusal to delete these local edits; {@code note}: what the run did, ending in "; ". */
  private String deleteRefusal(Set<String> edited, String note) {
    return "Cannot pull " + options.version() + ": --delete-extra would delete " + edited.size() + " local files that"
        + " differ from the version they came from: " + listed(edited) + " (" + note
        + "pull with --force to delete them)";
  }

  /**
   * Adds an ignored path and every folder that holds it: --delete-extra keeps them, as a push never saw the path (the
   * folder's {@code .quarryignore}, or for a DVC pull what DVC ignores).
   */
  private static void keepWithItsFolders(String relative, Set<String> kept) {
    kept.add(relative);
    for (int slash = relative.lastIndexOf('/'); slash > 0; slash = relative.lastIndexOf('/', slash - 1)) {
      kept.add(relative.substring(0, slash));
    }
  }

  /**
   * Deletes the extra paths the walk listed ({@link #deleteListed}), unless a listed file was edited since the walk
   * (unless forced): then nothing is deleted, and those files are returned for the refusal.
   */
  private Set<String> deleteExtra() throws IOException {
    Set<String> edited = editedSinceListed(extra, known);
    if (!edited.isEmpty()) {
      return edited;
    }
    int deleted = 0;
    Set<String> kept = new HashSet<>();
    for (Extra each : extra) {
      switch (deleteListed(each)) {
        case DELETED -> deleted++;
        case KEPT -> kept.add(session.folder().relativize(each.path()).toString());
        case GONE -> { }
      }
    }
    if (deleted > 0) {
      session.log("pull: deleted %d paths not in the version", deleted);
    }
    if (!kept.isEmpty()) {
      session.log("pull: kept %s not in the version, changed or filled while the pull ran: %s",
          Counted.of(kept.size(), "path"), listed(kept));
    }
    return Set.of();
  }

  /**
   * The listed files (relative paths) that changed since the walk listed them and are no longer as last synced: a
   * person's work since the check. None when forced.
   */
  private Set<String> editedSinceListed(List<Extra> listed, Map<String, FileState> known) throws IOException {
    Set<String> edited = new HashSet<>();
    if (options.force()) {
      return edited;
    }
    for (Extra each : listed) {
      FileIdentity now = identityOrNull(each.path());
      if (now != null && now.isRegularFile() && each.identity().isRegularFile() && !now.equals(each.identity())
          && !isSynced(each.path(), now, known.get(each.path().toString()), null)) {
        edited.add(session.folder().relativize(each.path()).toString());
      }
    }
    return edited;
  }

  private enum Deletion { DELETED, KEPT, GONE }

  /**
   * Deletes one listed path if it still is of the type the walk found: a folder only when empty by now (its listed
   * paths are deleted first, as the list is deepest first), so nothing that appeared in it since is deleted; a link
   * only when unchanged. A file was checked just before ({@link #editedSinceListed}).
   */
  private Deletion deleteListed(Extra listed) throws IOException {
    Path path = listed.path();
    FileIdentity now = identityOrNull(path);
    if (now == null) {
      return Deletion.GONE;
    }
    if (now.typeBits() != listed.identity().typeBits() || now.isSymbolicLink() && !now.equals(listed.identity())) {
      return Deletion.KEPT;
    }
    writableParentReady(session.folder().relativize(path).toString());
    try {
      Files.delete(path);
    } catch (DirectoryNotEmptyException e) {
      return Deletion.KEPT;
    } catch (NoSuchFileException e) {
      return Deletion.GONE;
    }
    return Deletion.DELETED;
  }

  /**
   * Deletes a local folder that stands where the version has a file or link (with --delete-extra): the paths in it
   * the walk listed, then the folder itself, only once empty; refused for the file, in one line, when it holds a file
   * edited since the walk or anything the walk did not list.
   */
  private void deleteFolderInTheWay(Path folder) throws IOException {
    String prefix = folder + "/";
    List<Extra> inside = extra.stream().filter(each -> each.path().toString().startsWith(prefix)).toList();
    Set<String> edited = editedSinceListed(inside, known);
    String relative = session.folder().relativize(folder).toString();
    if (!edited.isEmpty()) {
      throw new IOException("Cannot replace the folder " + TreeEntry.printable(relative) + ": it holds local files"
          + " edited while the pull ran: " + listed(edited) + " (pull with --force to delete them)");
    }
    for (Extra each : inside) {
      deleteListed(each);
    }
    writableParentReady(relative);
    try {
      Files.delete(folder);
    } catch (DirectoryNotEmptyException e) {
      throw new IOException("Cannot replace the folder " + TreeEntry.printable(relative) + ": it holds paths that"
          + " --delete-extra did not list (ignored, or written while the pull ran); they are kept");
    }
  }

  private static FileIdentity identityOrNull(Path path) throws IOException {
    try {
      return FileIdentity.of(path);
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /**
   * Creates the version's folders (empty ones too) and gives them their modes less the umask; each is a real folder,
   * not a link.
   */
  private void applyFolderModes(List<Selection.Folder> folders) throws IOException {
    for (Selection.Folder folder : folders) {
      Path path = target.folder(folder.path(), options.deleteExtra());
      Files.setPosixFilePermissions(path, FileIdentity.permissionSet(Umask.apply(folder.mode())));
    }
  }

  /** A hard link to the cached blob when {@code link} (its mode is the one wanted), else a copy. */
  private static void linkOrCopy(Path cached, Path staged, boolean link) throws IOException {
    if (!link) {
      Files.copy(cached, staged);
      return;
    }
    try {
      Files.createLink(staged, cached);
    } catch (FileSystemException | UnsupportedOperationException e) {
      // The cache is on another filesystem (EXDEV) or one without hard links: a copy gives the same bytes.
      Files.copy(cached, staged);
    }
  }

  /** Runs a check for every file, in parallel; returns the files whose check failed, with why. */
  private Map<Selection.File, Exception> check(List<Selection.File> files, InFlight.Task<Selection.File> task)
      throws IOException {
    try {
      return InFlight.forEach(files, session.remote().inFlight(), task);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while pulling");
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
