package dev.quarry.core.sync.dvc;

import dev.quarry.core.concurrent.Futures;
import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.fs.ConfinedFolder;
import dev.quarry.core.fs.WorkFolder;
import dev.quarry.core.sync.RunClock;
import dev.quarry.core.sync.SyncResult;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.TreeObject;
import dev.quarry.core.sync.local.FileIdentity;
import dev.quarry.core.sync.local.StateDatabase.FileState;
import dev.quarry.core.sync.pull.IncludeFilter;
import dev.quarry.core.sync.pull.Pull;
import dev.quarry.core.sync.pull.VersionSource;
import dev.quarry.core.sync.remote.TreeDiff;
import dev.quarry.core.units.Counted;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code quarry sync pull --dvc}: the version a {@code .dvc} file names, read straight from its DVC 3 remote, written
 * into the folder by {@link Pull} itself, so every rule of a pull holds (the tree checked whole first, paths confined,
 * local edits kept, atomic renames, --include, --delete-extra, --cache). A pull names files by SHA-256, DVC by MD5, so
 * first each listed file already in the folder is matched by its MD5 ({@link LocalMd5s}: both hashes in one read, or
 * the file's state row). Then, before any content is read, the pull's refusals are checked ({@link Pull#check}, with a
 * stand-in digest for each content the folder lacks): a local edit or a path in the way costs no download, and what
 * --delete-extra deletes is found by this one walk of the folder, which the pull then takes. Every
 * other content is then read from the DVC remote ({@link DvcRemote#download}: bounded, verified by MD5, hashed with
 * SHA-256 on the way) into this run's work folder and moved, verified, into the state folder's
 * {@value #CONTENTS}/{@code <md5>}; no download starts after one failed. The pull moves them into place; what a
 * failed or stopped pull leaves there is hashed again and used by the next pull, which so reads only what it lacks.
 * Nothing is written to the DVC remote. A path DVC ignores ({@link DvcIgnore}) is never extra to --delete-extra.
 * With include patterns, only the listed files they select make the version
 * (and are read).
 */
public final class DvcPull {
  /** The folder, in the state folder, of verified contents read from a DVC remote, each named by its md5. */
  private static final String CONTENTS = "dvc-contents";
  /** The name of this run's work folder in the state folder starts so ({@link WorkFolder}). */
  private static final String WORK = "dvc-pull-";
  private static final Set<PosixFilePermission> PRIVATE_FILE = PosixFilePermissions.fromString("rw-------");

  private final SyncSession session;
  private final DvcRemote dvc;
  private final Map<String, Digest> digests = new ConcurrentHashMap<>();
  private final Map<Digest, Path> staged = new ConcurrentHashMap<>();

  private DvcPull(SyncSession session, DvcRemote dvc) {
    this.session = session;
    this.dvc = dvc;
  }

  /**
   * Pulls the version {@code dvc} names into the session's folder, with {@code options}' include patterns, cache and
   * flags; the version is the .dvc file's (its md5), whatever {@code options} name. The session's remote is the DVC
   * remote's store, whose requests the result counts.
   */
  public static SyncResult run(SyncSession session, DvcRemote dvc, Pull.Options options) throws IOException {
    return new DvcPull(session, dvc).pull(options);
  }

  private SyncResult pull(Pull.Options options) throws IOException {
    session.stateInFolder(); // refuses a state folder that holds the folder, before anything in it is touched
    session.ignoreAlso(DvcIgnore.of(session.folder())); // --delete-extra keeps what DVC ignores, as DVC does
    RunClock clock = new RunClock(session.remote().store());
    IncludeFilter filter = new IncludeFilter(options.include());
    if (options.deleteExtra() && !dvc.source().hash().isDir()) {
      throw new IllegalArgumentException("Cannot pull " + dvc.source().hash() + " with --delete-extra: its .dvc file"
          + " tracks one file, not a folder (--delete-extra would delete everything else in the folder)");
    }
    List<DirListing.Entry> entries = dvc.files().stream().filter(entry -> filter.matches(entry.relpath())).toList();
    LocalMd5s md5s = new LocalMd5s(session.state(), session.folder());
    matchLocalFiles(entries, md5s);
    Set<String> toRead = new LinkedHashSet<>();
    entries.stream().map(DirListing.Entry::md5).filter(md5 -> !digests.containsKey(md5)).forEach(toRead::add);
    Pull.Options pullOptions = new Pull.Options(dvc.source().hash().toString(), options.include(),
        options.deleteExtra(), options.cache(), options.force());
    Pull.Checked checked = Pull.check(session, source(DvcTree.of(entries, withStandIns(toRead))), pullOptions);
    session.log("pull: %s lists %s; %d contents are in the folder already, %d to read from %s", dvc.source().hash(),
        Counted.of(entries.size(), "file"), digests.size(), toRead.size(), dvc.url());
    fetch(toRead);
    long bytes = entries.stream().mapToLong(entry -> digests.get(entry.md5()).size()).sum();
    if (filter.selectsEverything() && dvc.source().size() >= 0 && bytes != dvc.source().size()) {
      throw new IllegalArgumentException("Cannot pull " + dvc.source().hash() + ": its .dvc file declares "
          + dvc.source().size() + " bytes, but the files it lists hold " + bytes);
    }
    SyncResult pulled = Pull.run(session, source(DvcTree.of(entries, digests)), pullOptions, checked);
    recordWritten(entries, md5s);
    for (Path left : staged.values()) {
      Files.deleteIfExists(left); // a content the folder turned out to hold already
    }
    return new SyncResult(pulled.operation(), pulled.remote(), pulled.ref(), pulled.version(), pulled.files(),
        pulled.bytes(), pulled.hashedFiles(), null, null, pulled.transferred(), null, null, clock.requests(), null,
        null, 0, List.of(), List.of(), clock.startTime(), clock.now(), clock.elapsedSeconds());
  }

  /**
   * The digests known, and for each md5 to read a stand-in that no file holds (its SHA-256 is of other bytes than
   * any content of that md5), so that the pull's checks can run before anything is read.
   */
  private Map<String, Digest> withStandIns(Set<String> toRead) {
    Map<String, Digest> all = new HashMap<>(digests);
    for (String md5 : toRead) {
      all.put(md5, new Digest(Digest.of(("quarry stand-in for dvc md5 " + md5).getBytes(StandardCharsets.UTF_8))
          .hex(), 0));
    }
    return all;
  }

  /**
   * Makes every content to read a verified file in {@value #CONTENTS}: one a pull left there is hashed again and kept
   * if it still is its md5 (else deleted); others are downloaded into this run's work folder and moved there. No
   * download starts after one failed; the first failure, in listing order, is thrown.
   */
  private void fetch(Set<String> toRead) throws IOException {
    if (toRead.isEmpty()) {
      return;
    }
    Path contents = Files.createDirectories(session.stateFolder().resolve(CONTENTS));
    AtomicBoolean failed = new AtomicBoolean();
    Map<String, Exception> failures;
    try (WorkFolder work = WorkFolder.create(session.stateFolder(), WORK)) {
      failures = InFlight.forEach(toRead, session.remote().inFlight(), md5 -> {
        if (failed.get()) {
          return;
        }
        try {
          Path kept = contents.resolve(md5);
          Digest digest = verifiedKept(md5, kept);
          if (digest == null) {
            Path part = work.path().resolve(md5);
            digest = dvc.download(md5, part, PRIVATE_FILE);
            Files.move(part, kept, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
          }
          digests.put(md5, digest);
          staged.put(digest, kept);
        } catch (Exception e) {
          failed.set(true);
          throw e;
        }
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while reading from " + dvc.url());
    }
    for (String md5 : toRead) {
      if (failures.containsKey(md5)) {
        throw Futures.asIoException(failures.get(md5));
      }
    }
  }

  /** The digest of a content a pull left in {@value #CONTENTS}, hashed again; null (and deleted) unless its md5. */
  private static Digest verifiedKept(String md5, Path kept) throws IOException {
    if (!Files.isRegularFile(kept, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    try {
      LocalMd5s.Hashes hashes = DvcRemote.hashesOf(kept);
      if (hashes.md5().equals(md5)) {
        return hashes.digest();
      }
      Files.deleteIfExists(kept);
    } catch (NoSuchFileException e) {
      // another pull sharing this state folder took it
    }
    return null;
  }

  /**
   * Learns the SHA-256 digest of every listed content that a listed path of the folder already holds (by its MD5),
   * so that it is not read from the remote. Nothing is read through a link: a file behind one is simply not matched,
   * nor is a file that changed while it was read.
   */
  private void matchLocalFiles(List<DirListing.Entry> entries, LocalMd5s md5s) throws IOException {
    if (!Files.isDirectory(session.folder())) {
      return;
    }
    ConfinedFolder target = new ConfinedFolder(session.folder());
    InFlight.all(entries, Runtime.getRuntime().availableProcessors(), entry -> {
      if (digests.containsKey(entry.md5()) || target.wayTo(entry.relpath()) != ConfinedFolder.Way.CLEAR) {
        return;
      }
      Path path = target.resolve(entry.relpath());
      FileIdentity identity;
      try {
        identity = FileIdentity.of(path);
      } catch (NoSuchFileException e) {
        return;
      }
      if (!identity.isRegularFile()) {
        return;
      }
      LocalMd5s.Hashes hashes = md5s.of(path, identity);
      if (hashes != null && hashes.md5().equals(entry.md5())) {
        digests.put(entry.md5(), hashes.digest());
      }
    });
    md5s.save(); // not synced: a pull that finds the file right marks it so
  }

  /** The version as a pull reads it: its manifests from memory, its blobs from staging or else the DVC remote. */
  private VersionSource source(DvcTree tree) {
    Map<Digest, String> md5Of = new HashMap<>();
    digests.forEach((md5, digest) -> md5Of.put(digest, md5));
    return new VersionSource() {
      @Override
      public String url() {
        return dvc.url();
      }

      @Override
      public TreeObject root(String version) {
        return tree.root().top();
      }

      @Override
      public TreeDiff.Trees trees() {
        return TreeDiff.Trees.of(tree.byDigest());
      }

      @Override
      public long blobToFile(Digest digest, Path file, Set<PosixFilePermission> permissions) throws IOException {
        Path ready = staged.remove(digest);
        if (ready != null) {
          try {
            Files.move(ready, file);
            Files.setPosixFilePermissions(file, permissions);
            return digest.size();
          } catch (NoSuchFileException e) {
            // another pull sharing this state folder took it: read it again
          }
        }
        // A content the folder held at another path when the pull began: read it from the remote after all.
        Digest read = dvc.download(md5Of.get(digest), file, permissions);
        if (!read.equals(digest)) {
          Files.deleteIfExists(file);
          throw new IOException("Cannot pull " + dvc.source().hash() + ": the content of md5 " + md5Of.get(digest)
              + " on the DVC remote hashes to " + read + ", not " + digest + " as the local file of that md5 did");
        }
        return read.size();
      }

      @Override
      public void failed() {}
    };
  }

  /** Records the MD5 of every listed file the pull left holding the version's content, in its state row. */
  private void recordWritten(List<DirListing.Entry> entries, LocalMd5s md5s) throws IOException {
    ConfinedFolder target = new ConfinedFolder(session.folder());
    Map<String, FileState> known = session.state().load(session.folder());
    for (DirListing.Entry entry : entries) {
      if (target.wayTo(entry.relpath()) != ConfinedFolder.Way.CLEAR) {
        continue;
      }
      Path path = target.resolve(entry.relpath());
      FileState state = known.get(path.toString());
      if (state == null || !state.digest().equals(digests.get(entry.md5())) || entry.md5().equals(state.md5())) {
        continue;
      }
      try {
        FileIdentity identity = FileIdentity.of(path);
        if (identity.isRegularFile() && state.matches(identity)) {
          md5s.record(path, state, entry.md5());
        }
      } catch (NoSuchFileException e) {
        // not selected by --include, or never written
      }
    }
    md5s.save();
  }
}
