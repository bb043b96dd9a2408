package dev.quarry.core.sync;

import dev.quarry.core.fs.RealPaths;
import dev.quarry.core.sync.local.IgnoreRules;
import dev.quarry.core.sync.local.LocalTree;
import dev.quarry.core.sync.local.StateDatabase;
import dev.quarry.core.sync.local.TreeScanner;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.core.sync.remote.RemoteIndex;
import dev.quarry.core.units.Counted;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;

/**
 * One sync command's world: the local folder, the state folder (by default {@code <folder>/.quarry}, left out of
 * every version), the remote, and where progress for people goes. Opens the SQLite databases lazily.
 */
public final class SyncSession implements AutoCloseable {
  public static final String DEFAULT_STATE_FOLDER = ".quarry";

  private final Path folder;
  private final Path stateFolder;
  private final CasRemote remote;
  private final PrintStream log;
  private StateDatabase state;
  private RemoteIndex index;
  private IgnoreRules ignoreRules;

  /** {@code stateFolder} null: {@code <folder>/.quarry}. */
  public SyncSession(Path folder, Path stateFolder, CasRemote remote, PrintStream log) {
    this.folder = folder.toAbsolutePath().normalize();
    this.stateFolder = (stateFolder != null ? stateFolder : this.folder.resolve(DEFAULT_STATE_FOLDER))
        .toAbsolutePath().normalize();
    this.remote = remote;
    this.log = log;
  }

  public Path folder() {
    return folder;
  }

  public Path stateFolder() {
    return stateFolder;
  }

  /**
   * Where the state folder lies inside the folder, as a relative path, or null when it lies outside; found by real
   * paths (of the deepest part that exists), so a state folder named through a link is still recognised. Refuses a
   * state folder that is the folder or holds it: every file synced would be state, and state a file synced.
   */
  public String stateInFolder() throws IOException {
    Path realFolder = RealPaths.ofDeepestExisting(folder);
    Path realState = RealPaths.ofDeepestExisting(stateFolder);
    if (realFolder.startsWith(realState)) {
      throw new IllegalArgumentException("Invalid state folder: " + stateFolder
          + " (must not be the folder synced nor hold it)");
    }
    return realState.startsWith(realFolder) ? realFolder.relativize(realState).toString() : null;
  }

  /**
   * Whether a path lies in the folder but outside its state folders (the state folder and {@code .quarry}), by real
   * paths: where a version may write, so no place for anything of sync's own.
   */
  public boolean isSyncedPath(Path path) throws IOException {
    Path real = RealPaths.ofDeepestExisting(path.toAbsolutePath().normalize());
    Path realFolder = RealPaths.ofDeepestExisting(folder);
    return real.startsWith(realFolder) && !real.startsWith(RealPaths.ofDeepestExisting(stateFolder))
        && !real.startsWith(realFolder.resolve(DEFAULT_STATE_FOLDER));
  }

  public CasRemote remote() {
    return remote;
  }

  public synchronized StateDatabase state() throws IOException {
    if (state == null) {
      state = StateDatabase.open(stateFolder.resolve("state.db"));
    }
    return state;
  }

  public synchronized RemoteIndex index() throws IOException {
    if (index == null) {
      index = RemoteIndex.open(stateFolder.resolve("remotes"), remote.url());
    }
    return index;
  }

  /**
   * The rules of the folder's {@code .quarryignore}, read once: what scan, status and push leave out, and what a pull's
   * --delete-extra never deletes.
   */
  public synchronized IgnoreRules ignoreRules() throws IOException {
    if (ignoreRules == null) {
      ignoreRules = IgnoreRules.of(folder);
    }
    return ignoreRules;
  }

  /**
   * Ignores also what {@code more} ignores ({@link IgnoreRules#or}: a negation in either never re-includes what the
   * other ignores): a DVC status or pull leaves out what DVC's {@code .dvcignore} files ignore, as DVC does, from the
   * scan and from a pull's --delete-extra, and still what the folder's own {@code .quarryignore} ignores.
   */
  public synchronized void ignoreAlso(IgnoreRules more) throws IOException {
    ignoreRules = ignoreRules().or(more);
  }

  /**
   * Scans the folder into a Merkle tree, hashing only what the state database does not know and leaving out what
   * {@link #ignoreRules()} ignores. A folder that does not
   * exist is refused before any state is opened, so that a mistyped path is never created. {@code action}: what the
   * caller does with the folder, for the message ("push").
   */
  public LocalTree scan(String action) throws IOException {
    if (!Files.isDirectory(folder)) {
      throw new IOException("Cannot " + action + " " + folder + ": "
          + (Files.exists(folder) ? "not a folder" : "no such folder"));
    }
    String stateInside = stateInFolder();
    long start = System.nanoTime();
    TreeScanner scanner = new TreeScanner(state(), Runtime.getRuntime().availableProcessors(),
        new HashSet<>(List.of(stateFolder, folder.resolve(stateInside != null ? stateInside : DEFAULT_STATE_FOLDER))),
        ignoreRules(), line -> log("%s", line));
    LocalTree tree = scanner.scan(folder);
    log("scanned %s: %s, %s, %d hashed, %.1f s", folder, Counted.of(tree.files(), "file"),
        Counted.of(tree.manifests().size(), "folder"), tree.hashedFiles(), (System.nanoTime() - start) / 1e9);
    return tree;
  }

  /** Where progress for people goes. */
  public PrintStream log() {
    return log;
  }

  public void log(String format, Object... args) {
    log.printf(Locale.ROOT, format + "%n", args);
    log.flush();
  }

  @Override
  public synchronized void close() throws IOException {
    try (StateDatabase s = state; RemoteIndex i = index) {
      state = null;
      index = null;
    }
  }
}
