package dev.quarry.core.sync.dvc;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.fs.ConfinedFolder;
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
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * {@code quarry sync pull --dvc}: the version a {@code .dvc} file names, read straight from its DVC 3 remote, written
 * into the folder by {@link Pull} itself, so every rule of a pull holds (the tree checked whole first, paths confined,
 * local edits kept, atomic renames, --include, --delete-extra, --cache). A pull names files by SHA-256, DVC by MD5, so
 * first each listed file already in the folder is matched by its MD5 (cached as {@link LocalMd5s}), and every other
 * content is read from the DVC remote ({@link DvcRemote#download}: bounded, verified by MD5, hashed with SHA-256 on
 * the way) into a private staging folder in the state folder; the pull then moves it into place. Nothing is written to
 * the DVC remote. With include patterns, only the listed files they select make the version (and are read).
 */
public final class DvcPull {
  /** The name of a staging folder in the state folder starts so. */
  private static final String STAGING = "dvc-pull-";
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
    RunClock clock = new RunClock(session.remote().store());
    IncludeFilter filter = new IncludeFilter(options.include());
    List<DirListing.Entry> entries = dvc.files().stream().filter(entry -> filter.matches(entry.relpath())).toList();
    LocalMd5s md5s = new LocalMd5s(session.state(), session.folder());
    matchLocalFiles(entries, md5s);
    Set<String> toRead = new LinkedHashSet<>();
    entries.stream().map(DirListing.Entry::md5).filter(md5 -> !digests.containsKey(md5)).forEach(toRead::add);
    session.log("pull: %s lists %s; %d contents are in the folder already, %d to read from %s", dvc.source().hash(),
        Counted.of(entries.size(), "file"), digests.size(), toRead.size(), dvc.url());
    removeStaleStaging();
    Path staging = Files.createTempDirectory(Files.createDirectories(session.stateFolder()), STAGING);
    try {
      InFlight.all(toRead, session.remote().inFlight(), md5 -> {
        Digest digest = dvc.download(md5, staging.resolve(md5), PRIVATE_FILE);
        digests.put(md5, digest);
        staged.put(digest, staging.resolve(md5));
      });
      long bytes = entries.stream().mapToLong(entry -> digests.get(entry.md5()).size()).sum();
      if (filter.selectsEverything() && dvc.source().size() >= 0 && bytes != dvc.source().size()) {
        throw new IllegalArgumentException("Cannot pull " + dvc.source().hash() + ": its .dvc file declares "
            + dvc.source().size() + " bytes, but the files it lists hold " + bytes);
      }
      DvcTree tree = DvcTree.of(entries, digests);
      SyncResult pulled = Pull.run(session, source(tree), new Pull.Options(dvc.source().hash().toString(),
          options.include(), options.deleteExtra(), options.cache(), options.force()));
      recordWritten(entries, md5s);
      return new SyncResult(pulled.operation(), pulled.remote(), pulled.ref(), pulled.version(), pulled.files(),
          pulled.bytes(), pulled.hashedFiles(), null, null, pulled.transferred(), null, null, clock.requests(), null,
          null, 0, List.of(), List.of(), clock.startTime(), clock.now(), clock.elapsedSeconds());
    } finally {
      deleteTree(staging);
    }
  }

  /** Removes the staging folders of pulls that were killed: no two pulls write one folder at once. */
  private void removeStaleStaging() throws IOException {
    if (!Files.isDirectory(session.stateFolder())) {
      return;
    }
    try (DirectoryStream<Path> stale = Files.newDirectoryStream(session.stateFolder(), STAGING + "*")) {
      for (Path folder : stale) {
        deleteTree(folder);
      }
    }
  }

  private static void deleteTree(Path folder) throws IOException {
    try (Stream<Path> files = Files.walk(folder)) {
      for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  /**
   * Learns the SHA-256 digest of every listed content that a listed path of the folder already holds (by its MD5),
   * so that it is not read from the remote. Nothing is read through a link: a file behind one is simply not matched.
   */
  private void matchLocalFiles(List<DirListing.Entry> entries, LocalMd5s md5s) throws IOException {
    if (!Files.isDirectory(session.folder())) {
      return;
    }
    ConfinedFolder target = new ConfinedFolder(session.folder());
    Map<String, FileState> known = session.state().load(session.folder());
    Map<String, FileState> hashed = new ConcurrentHashMap<>();
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
      if (!identity.isRegularFile() || !md5s.of(path, identity).equals(entry.md5())) {
        return;
      }
      FileState state = known.get(path.toString());
      if (state != null && state.matches(identity.inode(), identity.mtimeNanos(), identity.size())) {
        digests.put(entry.md5(), state.digest());
      } else {
        Digest digest = Digest.ofFile(path);
        hashed.put(path.toString(), new FileState(identity.inode(), identity.mtimeNanos(), identity.size(), digest));
        digests.put(entry.md5(), digest);
      }
    });
    md5s.save();
    session.state().record(hashed); // not synced: a pull that finds the file right marks it so
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
          Files.move(ready, file);
          Files.setPosixFilePermissions(file, permissions);
          return digest.size();
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

  /** Caches the MD5 of every listed file the pull left holding the version's content. */
  private void recordWritten(List<DirListing.Entry> entries, LocalMd5s md5s) throws IOException {
    ConfinedFolder target = new ConfinedFolder(session.folder());
    Map<String, FileState> known = session.state().load(session.folder());
    for (DirListing.Entry entry : entries) {
      if (target.wayTo(entry.relpath()) != ConfinedFolder.Way.CLEAR) {
        continue;
      }
      Path path = target.resolve(entry.relpath());
      FileState state = known.get(path.toString());
      if (state == null || !state.digest().equals(digests.get(entry.md5()))) {
        continue;
      }
      try {
        FileIdentity identity = FileIdentity.of(path);
        if (identity.isRegularFile() && state.matches(identity.inode(), identity.mtimeNanos(), identity.size())) {
          md5s.record(path, identity, entry.md5());
        }
      } catch (NoSuchFileException e) {
        // not selected by --include, or never written
      }
    }
    md5s.save();
  }
}
