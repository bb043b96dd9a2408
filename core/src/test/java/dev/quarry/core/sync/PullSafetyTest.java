package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.FileStore;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.Ref;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.pull.Pull;
import dev.quarry.core.sync.push.Push;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pull against a filesystem remote: what it must never do to the folder, whatever the remote holds. */
class PullSafetyTest {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  @TempDir Path temp;
  private CasRemote remote;
  private HandMadeRemote hand;

  @BeforeEach
  void openRemote() {
    remote = new CasRemote(new FileStore(temp.resolve("remote")), "cas", 4);
    hand = new HandMadeRemote(remote);
  }

  private SyncResult pull(Path folder, String version, boolean deleteExtra, Path cache, boolean force)
      throws IOException {
    try (SyncSession session = new SyncSession(folder, null, remote, QUIET)) {
      return Pull.run(session, new Pull.Options(version, List.of(), deleteExtra, cache, force));
    }
  }

  private SyncResult pull(Path folder, String version) throws IOException {
    return pull(folder, version, false, null, false);
  }

  private SyncResult push(Path folder, String ref) throws IOException {
    try (SyncSession session = new SyncSession(folder, null, remote, QUIET)) {
      return Push.run(session, ref, Push.Options.defaults());
    }
  }

  private static String mode(Path path) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
  }

  @Test
  void aLinkThatLaterBecameAFolderIsReplacedNeverFollowed() throws Exception {
    Path outside = Files.createDirectories(temp.resolve("outside"));
    Files.setPosixFilePermissions(outside, PosixFilePermissions.fromString("rwx------"));
    Manifest v1 = hand.tree(TreeEntry.symlink("link", outside.toString()));
    Digest x = hand.blob("x");
    Manifest folder = hand.tree(TreeEntry.file("x", 0644, x));
    Manifest v2 = hand.tree(TreeEntry.directory("link", 0777, folder.digest(), 1, 1));

    Path target = temp.resolve("target");
    pull(target, v1.digest().text());
    assertThat(Files.isSymbolicLink(target.resolve("link"))).isTrue();
    pull(target, v2.digest().text());

    assertThat(outside).isEmptyDirectory();
    assertThat(mode(outside)).isEqualTo("rwx------");
    assertThat(Files.isDirectory(target.resolve("link"), LinkOption.NOFOLLOW_LINKS)).isTrue();
    assertThat(target.resolve("link/x")).hasContent("x");
    assertThat(mode(target.resolve("link"))).isEqualTo(masked(0777));
  }

  @Test
  void honestHistoryOfALinkBecomingAFolderAndBackStaysInside() throws Exception {
    Path outside = Files.createDirectories(temp.resolve("outside"));
    Path data = Files.createDirectories(temp.resolve("data"));
    Files.createSymbolicLink(data.resolve("d"), outside);
    push(data, "v1");
    Files.delete(data.resolve("d"));
    Files.createDirectories(data.resolve("d/e"));
    Files.writeString(data.resolve("d/e/f"), "f");
    push(data, "v2");

    Path target = temp.resolve("target");
    pull(target, "v1");
    pull(target, "v2");
    assertThat(outside).isEmptyDirectory();
    assertThat(TreeSnapshot.of(target)).isEqualTo(TreeSnapshot.of(data));

    var before = TreeSnapshot.of(target);
    assertThatThrownBy(() -> pull(target, "v1")).hasMessage("Cannot pull v1: 1 paths of the version have a local"
        + " folder or file in the way: d (pull with --delete-extra to replace them)");
    assertThat(TreeSnapshot.of(target)).isEqualTo(before);
    pull(target, "v1", true, null, false);
    assertThat(Files.isSymbolicLink(target.resolve("d"))).isTrue();
    assertThat(outside).isEmptyDirectory();
  }

  @Test
  void aLocalFileInTheWayOfAFolderIsReplacedOnlyWithDeleteExtra() throws Exception {
    Manifest folder = hand.tree(TreeEntry.file("f", 0644, hand.blob("f")));
    Manifest root = hand.tree(TreeEntry.directory("x", 0755, folder.digest(), 1, 1),
        TreeEntry.file("y", 0644, hand.blob("y")));
    Path target = Files.createDirectories(temp.resolve("target"));
    Files.writeString(target.resolve("x"), "a local file");
    var before = TreeSnapshot.of(target);
    assertThatThrownBy(() -> pull(target, root.digest().text())).hasMessageEndingWith("in the way: x, x/f (pull with"
        + " --delete-extra to replace them)");
    assertThat(TreeSnapshot.of(target)).isEqualTo(before);

    assertThatThrownBy(() -> pull(target, root.digest().text(), true, null, false)).hasMessage("Cannot pull "
        + root.digest().text() + ": 1 local files differ from both the version they came from and the new one: x"
        + " (pull with --force to replace them)");
    assertThat(TreeSnapshot.of(target)).isEqualTo(before);

    pull(target, root.digest().text(), true, null, true);
    assertThat(target.resolve("x/f")).hasContent("f");
    assertThat(target.resolve("y")).hasContent("y");
  }

  @Test
  void aLocalEditWhereTheVersionHasAnEmptyFolderIsReplacedOnlyWithDeleteExtraAndForce() throws Exception {
    Manifest empty = hand.tree();
    Manifest root = hand.tree(TreeEntry.directory("e", 0755, empty.digest(), 0, 0),
        TreeEntry.file("y", 0644, hand.blob("y")));
    Path target = Files.createDirectories(temp.resolve("target"));
    Files.writeString(target.resolve("e"), "a local file");
    var before = TreeSnapshot.of(target);

    assertThatThrownBy(() -> pull(target, root.digest().text())).hasMessageEndingWith("in the way: e (pull with"
        + " --delete-extra to replace them)");
    assertThat(TreeSnapshot.of(target)).isEqualTo(before);
    assertThatThrownBy(() -> pull(target, root.digest().text(), true, null, false)).hasMessageEndingWith(
        "differ from both the version they came from and the new one: e (pull with --force to replace them)");
    assertThat(TreeSnapshot.of(target)).isEqualTo(before);

    pull(target, root.digest().text(), true, null, true);
    assertThat(target.resolve("e")).isEmptyDirectory();
  }

  @Test
  void aVersionNamingTheReservedStateFolderIsRefused() throws Exception {
    Manifest remotes = hand.tree(TreeEntry.file("planted.db", 0644, hand.blob("complete")));
    Manifest state = hand.tree(TreeEntry.directory("remotes", 0755, remotes.digest(), 1, 8));
    Manifest root = hand.tree(TreeEntry.directory(".quarry", 0755, state.digest(), 1, 8),
        TreeEntry.file("a", 0644, hand.blob("a")));
    Path target = Files.createDirectories(temp.resolve("target"));
    Files.writeString(target.resolve("mine"), "mine");
    var before = TreeSnapshot.of(target);

    assertThatThrownBy(() -> pull(target, root.digest().text()))
        .hasMessage("Cannot pull " + root.digest().text() + ": it names .quarry, the folder's reserved state,"
            + " which no version may hold");
    assertThat(TreeSnapshot.of(target)).isEqualTo(before);
    assertThat(target.resolve(".quarry/remotes/planted.db")).doesNotExist();
  }

  @Test
  void deleteExtraKeepsTheDefaultStateFolderWhenStateLivesElsewhere() throws Exception {
    Manifest root = hand.tree(TreeEntry.file("a", 0644, hand.blob("a")));
    Path target = Files.createDirectories(temp.resolve("target/.quarry"));
    Files.writeString(target.resolve("keep"), "state of another session");
    try (SyncSession session = new SyncSession(temp.resolve("target"), temp.resolve("elsewhere"), remote, QUIET)) {
      Pull.run(session, new Pull.Options(root.digest().text(), List.of(), true, null, false));
    }
    assertThat(target.resolve("keep")).hasContent("state of another session");
  }

  private SyncResult pullWithState(Path folder, Path state, String version, boolean deleteExtra) throws IOException {
    try (SyncSession session = new SyncSession(folder, state, remote, QUIET)) {
      return Pull.run(session, new Pull.Options(version, List.of(), deleteExtra, null, true));
    }
  }

  @Test
  void aStateFolderThatIsOrHoldsTheFolderIsRefused() throws Exception {
    Manifest root = hand.tree(TreeEntry.file("a", 0644, hand.blob("a")));
    Path target = Files.createDirectories(temp.resolve("target"));
    assertThatThrownBy(() -> pullWithState(target, target, root.digest().text(), false)).hasMessage("Invalid state"
        + " folder: " + target + " (must not be the folder synced nor hold it)");
    assertThatThrownBy(() -> pullWithState(target, temp, root.digest().text(), false)).hasMessage("Invalid state"
        + " folder: " + temp + " (must not be the folder synced nor hold it)");
    assertThat(target).isEmptyDirectory();
  }

  @Test
  void noVersionReplacesOrDeletesAFolderThatHoldsTheStateFolder() throws Exception {
    Digest f = hand.blob("f");
    Manifest sub = hand.tree(TreeEntry.file("f", 0644, f));
    Manifest v1 = hand.tree(TreeEntry.directory("sub", 0755, sub.digest(), 1, 1));
    Manifest subIsAFile = hand.tree(TreeEntry.file("sub", 0644, f));
    Manifest noSub = hand.tree(TreeEntry.file("other", 0644, f));
    Path target = temp.resolve("target");
    Path state = target.resolve("sub/st");
    pullWithState(target, state, v1.digest().text(), false);
    assertThat(state.resolve("state.db")).exists();

    assertThatThrownBy(() -> pullWithState(target, state, subIsAFile.digest().text(), true)).hasMessage("Cannot"
        + " pull " + subIsAFile.digest().text() + ": it names sub as a file, but the folder's state folder lies"
        + " under it");
    assertThat(state.resolve("state.db")).exists();
    pullWithState(target, state, noSub.digest().text(), true);
    assertThat(state.resolve("state.db")).exists();
    assertThat(target.resolve("sub/f")).doesNotExist();
  }

  @Test
  void theStateFolderIsRecognisedThroughALinkedPath() throws Exception {
    Manifest planted = hand.tree(TreeEntry.file("state.db", 0644, hand.blob("planted")));
    Manifest root = hand.tree(TreeEntry.directory("st", 0755, planted.digest(), 1, 7));
    Path target = Files.createDirectories(temp.resolve("target"));
    Path link = Files.createSymbolicLink(temp.resolve("link"), temp);
    assertThatThrownBy(() -> pullWithState(target, link.resolve("target/st"), root.digest().text(), false))
        .hasMessageEndingWith("it names st, the folder's reserved state, which no version may hold");
    assertThat(target.resolve("st/state.db")).doesNotExist();
  }

  @Test
  void aBlobLargerThanItsDigestIsReadOnlyToItsDeclaredSizePlusOne() throws Exception {
    Digest claimed = Digest.of("6bytes".getBytes());
    Path object = Path.of(remote.store().url(remote.layout().blobKey(claimed)).substring("file://".length()));
    Files.createDirectories(object.getParent());
    try (var file = new java.io.RandomAccessFile(object.toFile(), "rw")) {
      file.setLength(3L << 30); // sparse: 3 GiB claimed as 6 bytes
    }
    Manifest root = hand.tree(TreeEntry.file("big", 0644, claimed));
    Path target = Files.createDirectories(temp.resolve("target"));

    assertThatThrownBy(() -> pull(target, root.digest().text()))
        .hasMessageContaining("big: " + remote.store().url(remote.layout().blobKey(claimed))
            + " is larger than its digest declares (6 bytes)")
        .hasMessageNotContaining("\n");
    assertThat(TreeSnapshot.of(target)).isEmpty();
  }

  @Test
  void aManifestLargerThanItsDigestIsNotReadWhole() throws Exception {
    Manifest small = hand.tree(TreeEntry.file("a", 0644, hand.blob("a")));
    Path object = Path.of(remote.store().url(remote.layout().treeKey(small.digest())).substring("file://".length()));
    try (var file = new java.io.RandomAccessFile(object.toFile(), "rw")) {
      file.setLength(3L << 30);
    }
    Manifest root = hand.tree(TreeEntry.directory("sub", 0755, small.digest(), 1, 1));
    Path target = Files.createDirectories(temp.resolve("target"));
    assertThatThrownBy(() -> pull(target, root.digest().text()))
        .hasMessageContaining("is larger than its digest declares (" + small.encodedLength() + " bytes)");
    assertThatThrownBy(() -> pull(target, small.digest().text()))
        .hasMessageContaining("is larger than a manifest may be (256 MiB)");
    assertThat(TreeSnapshot.of(target)).isEmpty();
  }

  @Test
  void cachedHardLinksNeverShareAModeAndAModeChangeBreaksTheLink() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data"));
    Path secret = Files.writeString(data.resolve("secret"), "same");
    Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
    Path tool = Files.writeString(data.resolve("tool"), "same");
    Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path plain = Files.writeString(data.resolve("plain"), "same");
    Files.setPosixFilePermissions(plain, PosixFilePermissions.fromString("rw-r--r--"));
    push(data, "v1");

    Path target = temp.resolve("target");
    Path cache = temp.resolve("cache");
    pull(target, "v1", false, cache, false);
    assertThat(TreeSnapshot.of(target)).isEqualTo(TreeSnapshot.of(data));

    Files.setPosixFilePermissions(plain, PosixFilePermissions.fromString("rwxr-xr-x")); // the umask keeps it
    Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rw-r--r--"));
    push(data, "v2");
    pull(target, "v2", false, cache, false);
    assertThat(TreeSnapshot.of(target)).isEqualTo(TreeSnapshot.of(data));
    Path blob = cache.resolve(Digest.of("same".getBytes()).hex().substring(0, 2))
        .resolve(Digest.of("same".getBytes()).hex());
    assertThat(mode(blob)).as("no pull changes a cached blob's mode").isEqualTo("r--r--r--");
  }

  private static int links(Path path) throws IOException {
    return (Integer) Files.getAttribute(path, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
  }

  @Test
  void theCacheIsPrivateAndOnlyReadOnlyFilesShareItsInodes() throws Exception {
    Digest same = hand.blob("same");
    Manifest a = hand.tree(TreeEntry.file("data", 0644, same));
    Manifest root = hand.tree(TreeEntry.directory("A", 0755, a.digest(), 1, 4),
        TreeEntry.directory("B", 0755, a.digest(), 1, 4), TreeEntry.file("ro", 0444, same),
        TreeEntry.file("secret", 0600, same));
    Path target = temp.resolve("target");
    Path cache = temp.resolve("cache");
    pull(target, root.digest().text(), false, cache, false);

    Path blob = cache.resolve(same.hex().substring(0, 2)).resolve(same.hex());
    assertThat(List.of(mode(cache), mode(blob.getParent()), mode(cache.resolve("tmp"))))
        .containsOnly("rwx------");
    assertThat(mode(blob)).isEqualTo("r--r--r--");
    assertThat(links(target.resolve("ro"))).as("read-only: linked").isEqualTo(2);
    assertThat(List.of(links(target.resolve("A/data")), links(target.resolve("B/data")),
        links(target.resolve("secret")))).as("writable: copied").containsOnly(1);
    assertThat(mode(target.resolve("secret"))).isEqualTo("rw-------");
    Files.writeString(target.resolve("A/data"), "edited", java.nio.file.StandardOpenOption.APPEND);
    assertThat(target.resolve("B/data")).hasContent("same");
    assertThat(blob).hasContent("same");
  }

  /** The umask of this process, as the shell it starts reports it (a child inherits it). */
  private static int umask() throws Exception {
    Process shell = new ProcessBuilder("sh", "-c", "umask").start();
    String octal = new String(shell.getInputStream().readAllBytes()).trim();
    assertThat(shell.waitFor()).isZero();
    return Integer.parseInt(octal, 8);
  }

  private static String masked(int mode) throws Exception {
    return PosixFilePermissions.toString(dev.quarry.core.sync.local.FileIdentity.permissionSet(mode & ~umask()));
  }

  @Test
  void remoteModesAreMaskedByTheUmask() throws Exception {
    Manifest open = hand.tree(TreeEntry.file("w", 0666, hand.blob("w")), TreeEntry.file("x", 0777, hand.blob("x")));
    Manifest root = hand.tree(TreeEntry.directory("open", 0777, open.digest(), 2, 2));
    Path target = temp.resolve("target");
    pull(target, root.digest().text());
    assertThat(umask() & 022).as("the test runs with a umask that clears group/other write").isNotZero();
    assertThat(List.of(mode(target.resolve("open")), mode(target.resolve("open/w")), mode(target.resolve("open/x"))))
        .containsExactly(masked(0777), masked(0666), masked(0777));
    var pulled = TreeSnapshot.of(target);
    pull(target, root.digest().text());
    assertThat(TreeSnapshot.of(target)).as("a masked mode is already right").isEqualTo(pulled);
  }

  @Test
  void aReadOnlyFolderIsWritableByItsOwnerWhileAPullWritesIntoItAndReadOnlyAfter() throws Exception {
    Digest a = hand.blob("a");
    Digest b = hand.blob("b");
    Manifest ro1 = hand.tree(TreeEntry.file("a", 0444, a));
    Manifest v1 = hand.tree(TreeEntry.directory("ro", 0555, ro1.digest(), 1, 1));
    Manifest ro2 = hand.tree(TreeEntry.file("a", 0444, a), TreeEntry.file("b", 0444, b));
    Manifest v2 = hand.tree(TreeEntry.directory("ro", 0555, ro2.digest(), 2, 2));
    Path target = temp.resolve("target");
    pull(target, v1.digest().text());
    assertThat(mode(target.resolve("ro"))).isEqualTo("r-xr-xr-x");

    // Root ignores modes, so what a user's pull needs is seen from inside: the mode while b is written.
    List<String> modesWhileWriting = new java.util.concurrent.CopyOnWriteArrayList<>();
    var watching = new DelegatingStore(remote.store()) {
      @Override
      public void before(String kind, String key) throws IOException {
        if (key.endsWith(b.hex())) {
          modesWhileWriting.add(mode(target.resolve("ro")));
        }
      }
    };
    try (SyncSession session = new SyncSession(target, null, new CasRemote(watching, "cas", 4), QUIET)) {
      Pull.run(session, new Pull.Options(v2.digest().text(), List.of(), false, null, false));
    }
    assertThat(modesWhileWriting).containsExactly("r-xr-xr-x".replaceFirst("r-x", "rwx"));
    assertThat(mode(target.resolve("ro"))).isEqualTo("r-xr-xr-x");
    assertThat(target.resolve("ro/b")).hasContent("b");
  }

  @Test
  void aLocalFileThatCannotBeCheckedStopsThePullBeforeAnythingIsWritten() throws Exception {
    // Folders deeper than PATH_MAX (4096 bytes) exist locally: a path under them cannot be looked at (ENAMETOOLONG).
    // The version's path, deep/<16 names of 254 bytes>/f, is 4086 bytes (a version may not hold longer ones): only
    // under the target folder does it pass PATH_MAX.
    String name = "d".repeat(254);
    Digest f = hand.blob("f");
    Manifest level = hand.tree(TreeEntry.file("f", 0640, f));
    for (int i = 0; i < 16; i++) {
      level = hand.tree(TreeEntry.directory(name, 0755, level.digest(), 1, 1));
    }
    Manifest root = hand.tree(TreeEntry.directory("deep", 0755, level.digest(), 1, 1),
        TreeEntry.file("other", 0644, f));
    Path target = Files.createDirectories(temp.resolve("target"));
    Process mkdirs = new ProcessBuilder("python3", "-c", "import os\nos.chdir('" + target + "')\n"
        + "for n in ['deep'] + ['" + name + "'] * 16:\n  os.mkdir(n)\n  os.chdir(n)").start();
    assertThat(mkdirs.waitFor()).isZero();

    try {
      assertThatThrownBy(() -> pull(target, root.digest().text()))
          .hasMessageStartingWith("Cannot pull " + root.digest().text() + ": 1 local files could not be checked"
              + " against the version (first: deep/" + name.substring(0, 10))
          .hasMessageContaining(", mode 0640: File name too long); nothing was written")
          .hasMessageNotContaining("File[").hasMessageNotContaining("\n");
      assertThat(target.resolve("other")).doesNotExist();
    } finally {
      assertThat(new ProcessBuilder("rm", "-rf", target.resolve("deep").toString()).start().waitFor()).isZero();
    }
  }

  @Test
  void aCacheInsideTheFolderIsRefusedUnlessUnderItsStateFolder() throws Exception {
    Manifest root = hand.tree(TreeEntry.file("a", 0444, hand.blob("a")));
    Path target = Files.createDirectories(temp.resolve("target"));
    Path inside = target.resolve("cache");
    assertThatThrownBy(() -> pull(target, root.digest().text(), false, inside, false)).hasMessage("Invalid cache"
        + " folder: " + inside + " (must not lie in the folder pulled into, unless in its state folder)");
    assertThat(target).isEmptyDirectory();

    pull(target, root.digest().text(), false, target.resolve(".quarry/cache"), false);
    assertThat(links(target.resolve("a"))).isEqualTo(2);
  }

  @Test
  void aNameOf255BytesPushesAndPulls() throws Exception {
    String name = "n".repeat(251) + ".txt";
    Path data = Files.createDirectories(temp.resolve("data/" + "d".repeat(255)));
    Files.writeString(data.resolve(name), "long");
    push(temp.resolve("data"), "latest");
    Path target = temp.resolve("target");
    pull(target, "latest", false, temp.resolve("cache"), false);
    assertThat(TreeSnapshot.of(target)).isEqualTo(TreeSnapshot.of(temp.resolve("data")));
    Path plain = temp.resolve("plain");
    pull(plain, "latest");
    assertThat(TreeSnapshot.of(plain)).isEqualTo(TreeSnapshot.of(temp.resolve("data")));
  }

  @Test
  void aLocalEditIsNeverOverwrittenWithoutForce() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data"));
    Files.writeString(data.resolve("a"), "a1");
    Files.writeString(data.resolve("b"), "b1");
    push(data, "latest");
    Path target = temp.resolve("target");
    pull(target, "latest");
    Files.writeString(data.resolve("a"), "a2");
    Files.writeString(data.resolve("b"), "b2");
    push(data, "latest");

    Files.writeString(target.resolve("a"), "my edit");
    var before = TreeSnapshot.of(target);
    assertThatThrownBy(() -> pull(target, "latest"))
        .hasMessage("Cannot pull latest: 1 local files differ from both the version they came from and the new one:"
            + " a (pull with --force to replace them)");
    assertThat(TreeSnapshot.of(target)).isEqualTo(before);

    pull(target, "latest", false, null, true);
    assertThat(TreeSnapshot.of(target)).isEqualTo(TreeSnapshot.of(data));
  }

  @Test
  void aLocalEditIsNeverReplacedByALinkWithoutForce() throws Exception {
    Manifest v1 = hand.tree(TreeEntry.file("x", 0644, hand.blob("x1")));
    Manifest v4 = hand.tree(TreeEntry.symlink("newfile", "x"), TreeEntry.symlink("x", "/elsewhere"));
    Path target = temp.resolve("target");
    pull(target, v1.digest().text());
    Files.writeString(target.resolve("x"), "my edit");
    Files.writeString(target.resolve("newfile"), "made by hand");
    var before = TreeSnapshot.of(target);

    assertThatThrownBy(() -> pull(target, v4.digest().text())).hasMessage("Cannot pull " + v4.digest().text()
        + ": 2 local files differ from both the version they came from and the new one: newfile, x (pull with"
        + " --force to replace them)");
    assertThat(TreeSnapshot.of(target)).isEqualTo(before);

    pull(target, v4.digest().text(), false, null, true);
    assertThat(Files.readSymbolicLink(target.resolve("x"))).hasToString("/elsewhere");
  }

  @Test
  void deleteExtraNeverDeletesALocalEditWithoutForce() throws Exception {
    Digest x = hand.blob("x");
    Manifest v1 = hand.tree(TreeEntry.file("x", 0644, x), TreeEntry.file("y", 0644, hand.blob("y")),
        TreeEntry.file("z", 0644, hand.blob("z")));
    Manifest v2 = hand.tree(TreeEntry.file("x", 0644, x));
    Path target = temp.resolve("target");
    pull(target, v1.digest().text());
    Files.writeString(target.resolve("y"), "my edit");
    var before = TreeSnapshot.of(target);

    assertThatThrownBy(() -> pull(target, v2.digest().text(), true, null, false)).hasMessage("Cannot pull "
        + v2.digest().text() + ": --delete-extra would delete 1 local files that differ from the version they came"
        + " from: y (pull with --force to delete them)");
    assertThat(TreeSnapshot.of(target)).isEqualTo(before);

    pull(target, v2.digest().text(), true, null, true);
    assertThat(target.resolve("y")).doesNotExist();
    assertThat(target.resolve("z")).doesNotExist();
  }

  /**
   * --delete-extra deletes only what its walk listed, before the downloads: a file written during them into a listed
   * folder is kept with its folder (reported), and a file edited during them is refused, after the version is written
   * and before anything is deleted.
   */
  @Test
  void deleteExtraNeverDeletesWhatAppearedOrChangedDuringTheDownloads() throws Exception {
    Digest x = hand.blob("x");
    Manifest old = hand.tree(TreeEntry.file("a", 0644, hand.blob("a")));
    Manifest v1 = hand.tree(TreeEntry.file("x", 0644, x), TreeEntry.file("y", 0644, hand.blob("y")),
        TreeEntry.directory("old", 0755, old.digest(), 1, 1));
    Digest n = hand.blob("new");
    Manifest v2 = hand.tree(TreeEntry.file("x", 0644, x), TreeEntry.file("n", 0644, n));
    Path target = temp.resolve("target");
    pull(target, v1.digest().text());

    var filling = DelegatingStore.withHook(remote.store(), (kind, key) -> {
      if (key.endsWith(n.hex()) && !Files.exists(target.resolve("old/work.txt"))) {
        Files.writeString(target.resolve("old/work.txt"), "a person's work, written during the downloads");
      }
    });
    var log = new java.io.ByteArrayOutputStream();
    try (SyncSession session = new SyncSession(target, null, new CasRemote(filling, "cas", 4),
        new PrintStream(log, true, java.nio.charset.StandardCharsets.UTF_8))) {
      Pull.run(session, new Pull.Options(v2.digest().text(), List.of(), true, null, false));
    }
    assertThat(TreeSnapshot.of(target).keySet()).containsExactly("n", "old", "old/work.txt", "x");
    assertThat(log.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("pull: deleted 2 paths not in the"
        + " version\n", "pull: kept 1 path not in the version, changed or filled while the pull ran:"
        + " old\n");

    pull(target, v1.digest().text(), true, null, true);
    var editing = DelegatingStore.withHook(remote.store(), (kind, key) -> {
      if (key.endsWith(n.hex())) {
        Files.writeString(target.resolve("y"), "edited during the downloads");
      }
    });
    try (SyncSession session = new SyncSession(target, null, new CasRemote(editing, "cas", 4), QUIET)) {
      assertThatThrownBy(() -> Pull.run(session, new Pull.Options(v2.digest().text(), List.of(), true, null, false)))
          .hasMessage("Cannot pull " + v2.digest().text() + ": --delete-extra would delete 1 local files that differ"
              + " from the version they came from: y (edited while the pull ran: the version is written, nothing was"
              + " deleted; pull with --force to delete them)");
    }
    assertThat(TreeSnapshot.of(target).keySet()).containsExactly("n", "old", "old/a", "x", "y");
  }

  /**
   * A local folder where the version has a file is replaced (with --delete-extra) by deleting what the walk listed in
   * it and then the folder, once empty: a file written into it during the downloads keeps it, and fails that file.
   */
  @Test
  void aFolderInTheWayThatFillsDuringTheDownloadsIsKept() throws Exception {
    Manifest folder = hand.tree(TreeEntry.file("a", 0644, hand.blob("a")));
    Manifest v1 = hand.tree(TreeEntry.directory("d", 0755, folder.digest(), 1, 1));
    Digest d = hand.blob("d as a file");
    Manifest v2 = hand.tree(TreeEntry.file("d", 0644, d));
    Path target = temp.resolve("target");
    pull(target, v1.digest().text());

    var filling = DelegatingStore.withHook(remote.store(), (kind, key) -> {
      if (key.endsWith(d.hex()) && !Files.exists(target.resolve("d/work.txt"))) {
        Files.writeString(target.resolve("d/work.txt"), "a person's work, written during the downloads");
      }
    });
    try (SyncSession session = new SyncSession(target, null, new CasRemote(filling, "cas", 4), QUIET)) {
      assertThatThrownBy(() -> Pull.run(session, new Pull.Options(v2.digest().text(), List.of(), true, null, false)))
          .hasMessageContaining("1 files failed (first: d: Cannot replace the folder d: it holds paths that"
              + " --delete-extra did not list (ignored, or written while the pull ran); they are kept)");
    }
    assertThat(TreeSnapshot.of(target).keySet()).containsExactly("d", "d/work.txt");
  }

  @Test
  void aPulledFolderUpdatesAfterAStatusAndUntouchedFilesAreNotEdits() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data"));
    Files.writeString(data.resolve("a"), "a1");
    push(data, "latest");
    Path target = temp.resolve("target");
    pull(target, "latest");
    try (SyncSession session = new SyncSession(target, null, remote, QUIET)) {
      StatusCheck.run(session, "latest");
    }
    Files.writeString(data.resolve("a"), "a2");
    push(data, "latest");
    pull(target, "latest");
    assertThat(target.resolve("a")).hasContent("a2");

    Files.writeString(data.resolve("a"), "a3");
    push(data, "latest");
    Files.writeString(target.resolve("a"), "edited");
    try (SyncSession session = new SyncSession(target, null, remote, QUIET)) {
      StatusCheck.run(session, "latest"); // hashes the edit: still an edit
    }
    assertThatThrownBy(() -> pull(target, "latest")).hasMessageContaining("differ from both");
  }

  @Test
  void aSyncedFileHashedAgainWithItsContentUnchangedIsNoLocalEdit() throws Exception {
    // Hashed again because touched, or because its row was recorded untrusted (stamped in the clock's present: here
    // an mtime ahead of the clock), a file with the synced content stays synced: the next pull replaces it.
    Path data = Files.createDirectories(temp.resolve("data"));
    Files.writeString(data.resolve("touched"), "t1");
    Files.writeString(data.resolve("ahead"), "a1");
    push(data, "latest");
    Path target = Files.createDirectories(temp.resolve("target"));
    Files.writeString(target.resolve("ahead"), "a1"); // found already right by the pull
    Files.setLastModifiedTime(target.resolve("ahead"),
        java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 3_600_000));
    pull(target, "latest");
    Files.setLastModifiedTime(target.resolve("touched"),
        java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 60_000));
    try (SyncSession session = new SyncSession(target, null, remote, QUIET)) {
      assertThat(session.scan("status").hashedFiles()).isEqualTo(2);
    }
    Files.writeString(data.resolve("touched"), "t2");
    Files.writeString(data.resolve("ahead"), "a2");
    push(data, "latest");
    pull(target, "latest");
    assertThat(target.resolve("touched")).hasContent("t2");
    assertThat(target.resolve("ahead")).hasContent("a2");
  }

  @Test
  void aFolderPushedFromIsUpdatedByAPullOfANewerVersion() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data"));
    Files.writeString(data.resolve("a"), "a1");
    push(data, "latest");
    Path other = temp.resolve("other");
    pull(other, "latest");
    Files.writeString(other.resolve("a"), "a2");
    push(other, "latest");

    pull(data, "latest");
    assertThat(data.resolve("a")).hasContent("a2");
  }

  @Test
  void aRefWhoseCountsDisagreeWithItsRootIsRefused() throws Exception {
    Manifest root = hand.tree(TreeEntry.file("a", 0644, hand.blob("a")));
    remote.writeRef("latest", Ref.of(root.digest(), 5, 1, "2026-01-01T00:00:00Z"), null, "test@host", "test");
    Path target = Files.createDirectories(temp.resolve("target"));
    assertThatThrownBy(() -> pull(target, "latest")).hasMessage("Invalid ref latest: it declares 5 files and"
        + " 1 bytes, but its root manifest holds 1 files and 1 bytes");
  }

  /**
   * A pull killed mid-write leaves its temporaries beside their destinations: a later push leaves them out of the
   * version, and the next pull into that folder removes them (a user's file of a like name stays).
   */
  @Test
  void temporariesOfAKilledPullAreNeitherPushedNorLeftByTheNextPull() throws Exception {
    Path source = Files.createDirectories(temp.resolve("source/sub"));
    Files.writeString(source.resolve("a"), "a");
    push(source.getParent(), "latest");
    Path target = temp.resolve("target");
    pull(target, "latest");
    Path killed = Files.writeString(target.resolve("sub/.quarry-part-00ab12cd34ef5678"), "half a file");
    Path shortName = Files.writeString(target.resolve("sub/.quarry-part-ab12"), "half of another");
    Path users = Files.writeString(target.resolve("sub/.quarry-part-notes"), "a user's file");

    push(target, "again");
    Path pulled = temp.resolve("pulled");
    pull(pulled, "again");
    assertThat(TreeSnapshot.of(pulled).keySet()).containsExactly("sub", "sub/.quarry-part-notes", "sub/a");

    Files.writeString(source.resolve("b"), "b");
    push(source.getParent(), "latest");
    pull(target, "latest");
    assertThat(killed).doesNotExist();
    assertThat(shortName).doesNotExist();
    assertThat(users).hasContent("a user's file");
  }
}
