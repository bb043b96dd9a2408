package dev.quarry.core.sync.dvc;

import static dev.quarry.core.sync.dvc.HandMadeDvcRemote.entry;
import static dev.quarry.core.sync.dvc.HandMadeDvcRemote.md5;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.RequestTotals;
import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.sync.SyncResult;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.pull.Pull;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Status and pull straight from a DVC remote written by hand, as a hostile or broken one could be: every refusal is
 * one line and leaves the folder as it was; what is in the folder already is matched by MD5 and not read again.
 */
class DvcPullTest {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  @TempDir Path temp;
  private ObjectStore dvc;
  private HandMadeDvcRemote remote;
  private Path folder;

  @BeforeEach
  void open() throws IOException {
    dvc = new FileStore(temp.resolve("dvc"));
    remote = new HandMadeDvcRemote(dvc, "store");
    folder = Files.createDirectories(temp.resolve("data"));
  }

  @AfterEach
  void close() throws IOException {
    dvc.close();
  }

  private SyncSession session() {
    return new SyncSession(folder, null, new CasRemote(dvc, "store", 4), QUIET);
  }

  private SyncResult pull(DvcFile source, boolean force) throws IOException {
    try (SyncSession session = session()) {
      return DvcPull.run(session, new DvcRemote(dvc, "store", source, "pull"),
          new Pull.Options("ignored", List.of(), false, null, force));
    }
  }

  /** A pull with one request in flight (contents are read in listing order) and this state folder (null: default). */
  private SyncResult pullOneAtATime(DvcFile source, Path stateFolder) throws IOException {
    try (SyncSession session = new SyncSession(folder, stateFolder, new CasRemote(dvc, "store", 1), QUIET)) {
      return DvcPull.run(session, new DvcRemote(dvc, "store", source, "pull"),
          new Pull.Options("ignored", List.of(), false, null, false));
    }
  }

  /** GETs made by {@code action}, whether it succeeded or failed. */
  private long gets(Action action) {
    var before = dvc.requests().snapshot();
    try {
      action.run();
    } catch (Exception e) {
      // counted all the same
    }
    return RequestTotals.of(dvc.requests().snapshot().minus(before)).get();
  }

  private interface Action {
    void run() throws Exception;
  }

  private SyncResult status(DvcFile source) throws IOException {
    try (SyncSession session = session()) {
      return DvcStatus.run(session, new DvcRemote(dvc, "store", source, "compare with"));
    }
  }

  private void assertRefused(DvcFile source, String message) throws IOException {
    List<String> before = files();
    assertThatThrownBy(() -> pull(source, false))
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").matches("(Cannot|Invalid) .*"))
        .hasMessageContaining(message);
    assertThat(files()).isEqualTo(before);
  }

  /** Every path in the folder but the state folder, sorted. */
  private List<String> files() throws IOException {
    try (Stream<Path> walk = Files.walk(folder)) {
      return walk.map(path -> folder.relativize(path).toString())
          .filter(path -> !path.isEmpty() && !path.startsWith(".quarry")).sorted().toList();
    }
  }

  @Test
  void aHostileListingIsRefusedInOneLineBeforeAnythingIsWritten() throws Exception {
    String a = remote.file("a");
    Files.writeString(folder.resolve("kept"), "mine");
    for (HandMadeDvcRemote.Hostile hostile : HandMadeDvcRemote.hostileListings(a)) {
      assertRefused(new DvcFile(remote.listing("[" + hostile.entries() + "]"), hostile.files(), hostile.files(),
          "data"), hostile.refusal());
    }
    assertThat(temp.resolve("escape")).doesNotExist();
  }

  @Test
  void contentLargerThanDeclaredOrNotOfItsMd5IsRefusedAndNothingAppears() throws Exception {
    DvcHash huge = remote.listing("[" + entry(remote.file("x".repeat(10_000)), "big") + "]");
    assertRefused(new DvcFile(huge, 100, 1, "data"), "Cannot pull " + huge + ": ");
    assertRefused(new DvcFile(huge, 100, 1, "data"),
        "is larger than 100 bytes, the size of the whole folder its .dvc file declares");

    String b = remote.file("b");
    remote.corrupt(b, "c");
    assertRefused(new DvcFile(remote.listing("[" + entry(b, "b") + "]"), 1, 1, "data"),
        " is corrupt: its bytes hash to md5 " + md5("c".getBytes(StandardCharsets.UTF_8)) + ", not " + b);
    String d = remote.file("d");
    assertRefused(new DvcFile(remote.listing("[" + entry(d, "d") + "]"), 2, 1, "data"),
        "its .dvc file declares 2 bytes, but the files it lists hold 1");
    assertThat(files()).isEmpty();
  }

  @Test
  void aPullWritesTheVersionReadsOnlyWhatTheFolderLacksAndKeepsLocalEdits() throws Exception {
    String alpha = remote.file("alpha");
    String beta = remote.file("beta");
    DvcHash v1 = remote.listing("[" + entry(alpha, "x/a") + ", " + entry(beta, "b") + ", " + entry(alpha, "y/a-again")
        + "]");
    SyncResult first = pull(new DvcFile(v1, 14, 3, "data"), false);

    assertThat(files()).containsExactly("b", "x", "x/a", "y", "y/a-again");
    assertThat(folder.resolve("x/a")).hasContent("alpha");
    assertThat(folder.resolve("y/a-again")).hasContent("alpha");
    assertThat(first.transferred().objects()).isEqualTo(2);
    assertThat(first.ref()).isEqualTo(v1.toString());
    assertThat(status(new DvcFile(v1, 14, 3, "data")).differs()).isFalse();

    // v2 changes b and adds c: the pull reads those two contents only, and alpha stays where it is.
    String gamma = remote.file("gamma");
    String beta2 = remote.file("beta2");
    DvcHash v2 = remote.listing("[" + entry(alpha, "x/a") + ", " + entry(beta2, "b") + ", " + entry(gamma, "c") + "]");
    long inode = (Long) Files.getAttribute(folder.resolve("x/a"), "unix:ino");
    SyncResult second = pull(new DvcFile(v2, 15, 3, "data"), false);

    assertThat(second.requests().get()).isEqualTo(3); // the listing, beta2, gamma
    assertThat(folder.resolve("b")).hasContent("beta2");
    assertThat(folder.resolve("c")).hasContent("gamma");
    assertThat((Long) Files.getAttribute(folder.resolve("x/a"), "unix:ino")).isEqualTo(inode);

    // A local edit is kept, as in any pull, unless forced.
    Files.writeString(folder.resolve("b"), "edited");
    assertRefused(new DvcFile(v1, 14, 3, "data"), "1 local files differ from both the version they came from and"
        + " the new one: b (pull with --force to replace them)");
    pull(new DvcFile(v1, 14, 3, "data"), true);
    assertThat(folder.resolve("b")).hasContent("beta");
  }

  @Test
  void statusNamesWhatChangedSinceTheDvcVersionAndWhatTheDvcRemoteLacks() throws Exception {
    String alpha = remote.file("alpha");
    String beta = remote.file("beta");
    String gamma = remote.file("gamma");
    DvcHash version = remote.listing("[" + entry(alpha, "a") + ", " + entry(beta, "sub/b") + ", " + entry(gamma, "c")
        + "]");
    DvcFile source = new DvcFile(version, 14, 3, "data");
    pull(source, false);

    Files.writeString(folder.resolve("a"), "beta"); // modified, to a content the remote holds
    Files.delete(folder.resolve("sub/b"));
    Files.writeString(folder.resolve("new"), "not pushed"); // added, and the remote lacks it
    SyncResult result = status(source);

    assertThat(result.changes().added().paths()).containsExactly("new");
    assertThat(result.changes().modified().paths()).containsExactly("a");
    assertThat(result.changes().deleted().paths()).containsExactly("sub/b");
    assertThat(result.changes().notOnRemote().paths()).containsExactly("new");
    assertThat(result.missingRemote().objects()).isEqualTo(1);
    assertThat(result.missingRemote().bytes()).isEqualTo(10);
    assertThat(result.missingLocal().objects()).isEqualTo(2);
    assertThat(result.missingLocal().bytes()).isEqualTo(9); // alpha and beta, what a pull would read
    assertThat(result.differs()).isTrue();
    assertThat(result.requests().head()).isEqualTo(3); // the contents on changed paths: beta, not pushed, alpha
  }

  @Test
  void aPullRefusedForALocalEditReadsNoContent() throws Exception {
    String alpha = remote.file("alpha");
    String beta = remote.file("beta");
    pull(new DvcFile(remote.listing("[" + entry(alpha, "a") + ", " + entry(beta, "b") + "]"), 9, 2, "data"), false);
    Files.writeString(folder.resolve("b"), "edited");
    DvcFile next = new DvcFile(remote.listing("[" + entry(alpha, "a") + ", " + entry(beta, "b") + ", "
        + entry(remote.file("gamma"), "c") + ", " + entry(remote.file("delta"), "d") + "]"), 19, 4, "data");

    assertThat(gets(() -> assertRefused(next, "1 local files differ from both the version they came from and the new"
        + " one: b (pull with --force to replace them)"))).isEqualTo(1); // the listing, no content
  }

  /**
   * A pull walks the folder for --delete-extra once, in its check before any content is read, as a pull from a
   * Quarry remote does before its downloads: a file that appears while the contents are read is not extra.
   */
  @Test
  void deleteExtraDeletesWhatTheWalkBeforeTheDownloadsFoundOnly() throws Exception {
    DvcFile first = new DvcFile(remote.listing("[" + entry(remote.file("alpha"), "a") + ", "
        + entry(remote.file("beta"), "b") + "]"), 9, 2, "data");
    pull(first, false);
    String gamma = remote.file("gamma");
    DvcFile next = new DvcFile(remote.listing("[" + entry(md5("alpha".getBytes(StandardCharsets.UTF_8)), "a") + ", "
        + entry(gamma, "c") + "]"), 10, 2, "data");
    ObjectStore appearing = DelegatingStore.withHook(dvc, (kind, key) -> {
      if (key.endsWith(gamma.substring(2)) && !Files.exists(folder.resolve("late"))) {
        Files.writeString(folder.resolve("late"), "written while the pull read gamma");
      }
    });
    try (SyncSession session = session()) {
      DvcPull.run(session, new DvcRemote(appearing, "store", next, "pull"),
          new Pull.Options("ignored", List.of(), true, null, false));
    }
    assertThat(files()).containsExactly("a", "c", "late");
  }

  /**
   * --delete-extra deletes only the paths its walk listed: a file written into an extra folder while the contents are
   * read is kept, and so is its folder.
   */
  @Test
  void aFileThatAppearsInAnExtraFolderDuringTheDownloadsIsKeptWithItsFolder() throws Exception {
    DvcFile first = new DvcFile(remote.listing("[" + entry(remote.file("alpha"), "a") + ", "
        + entry(remote.file("beta"), "old/b") + "]"), 9, 2, "data");
    pull(first, false);
    String gamma = remote.file("gamma");
    DvcFile next = new DvcFile(remote.listing("[" + entry(md5("alpha".getBytes(StandardCharsets.UTF_8)), "a") + ", "
        + entry(gamma, "c") + "]"), 10, 2, "data");
    ObjectStore appearing = DelegatingStore.withHook(dvc, (kind, key) -> {
      if (key.endsWith(gamma.substring(2)) && !Files.exists(folder.resolve("old/work.txt"))) {
        Files.writeString(folder.resolve("old/work.txt"), "a person's work, written while the pull read gamma");
      }
    });
    try (SyncSession session = session()) {
      DvcPull.run(session, new DvcRemote(appearing, "store", next, "pull"),
          new Pull.Options("ignored", List.of(), true, null, false));
    }
    assertThat(files()).containsExactly("a", "c", "old", "old/work.txt");
  }

  /**
   * A synced file that --delete-extra would delete, edited while the contents are read, is checked again right before
   * the deletions: the pull refuses, having written the version and deleted nothing.
   */
  @Test
  void anExtraFileEditedDuringTheDownloadsIsRefusedAndNothingIsDeleted() throws Exception {
    DvcFile first = new DvcFile(remote.listing("[" + entry(remote.file("alpha"), "a") + ", "
        + entry(remote.file("beta"), "b") + "]"), 9, 2, "data");
    pull(first, false);
    String gamma = remote.file("gamma");
    DvcFile next = new DvcFile(remote.listing("[" + entry(md5("alpha".getBytes(StandardCharsets.UTF_8)), "a") + ", "
        + entry(gamma, "c") + "]"), 10, 2, "data");
    ObjectStore editing = DelegatingStore.withHook(dvc, (kind, key) -> {
      if (key.endsWith(gamma.substring(2))) {
        Files.writeString(folder.resolve("b"), "edited by hand while the pull read gamma, longer");
      }
    });
    try (SyncSession session = session()) {
      assertThatThrownBy(() -> DvcPull.run(session, new DvcRemote(editing, "store", next, "pull"),
          new Pull.Options("ignored", List.of(), true, null, false))).hasMessage("Cannot pull " + next.hash()
          + ": --delete-extra would delete 1 local files that differ from the version they came from: b (edited while"
          + " the pull ran: the version is written, nothing was deleted; pull with --force to delete them)");
    }
    assertThat(files()).containsExactly("a", "b", "c");
  }

  /**
   * What the folder's .quarryignore ignores stays ignored whatever a .dvcignore re-includes (the two are a union):
   * --delete-extra keeps it.
   */
  @Test
  void aDvcignoreNegationNeverReincludesWhatTheQuarryignoreIgnores() throws Exception {
    Files.createDirectories(temp.resolve(".dvc"));
    Files.writeString(temp.resolve(".dvcignore"), "*\n!*/\n!*.csv\n");
    Files.writeString(folder.resolve(".quarryignore"), "local.csv\n");
    Files.writeString(folder.resolve("local.csv"), "a person's table, never synced");
    try (SyncSession session = session()) {
      DvcPull.run(session, new DvcRemote(dvc, "store", new DvcFile(remote.listing("[" + entry(remote.file("alpha"),
          "a.csv") + "]"), 5, 1, "data"), "pull"), new Pull.Options("ignored", List.of(), true, null, false));
    }
    assertThat(files()).containsExactly("a.csv", "local.csv");
    assertThat(folder.resolve(".quarryignore")).exists();
  }

  /**
   * A .dvcignore that is a symbolic link is followed, as DVC follows it: --delete-extra keeps what it ignores. One that
   * leads to no regular file is refused, never skipped.
   */
  @Test
  void aDvcignoreThatIsALinkIsFollowed() throws Exception {
    Files.createDirectories(temp.resolve(".dvc"));
    Files.writeString(temp.resolve("shared-ignore"), "*.tmp\n");
    Files.createSymbolicLink(temp.resolve(".dvcignore"), Path.of("shared-ignore"));
    Files.writeString(folder.resolve("x.tmp"), "scratch, never synced");
    try (SyncSession session = session()) {
      DvcPull.run(session, new DvcRemote(dvc, "store", new DvcFile(remote.listing("[" + entry(remote.file("alpha"),
          "a") + "]"), 5, 1, "data"), "pull"), new Pull.Options("ignored", List.of(), true, null, false));
    }
    assertThat(files()).containsExactly("a", "x.tmp");

    Files.delete(temp.resolve("shared-ignore"));
    assertThatThrownBy(() -> pull(new DvcFile(remote.listing("[" + entry(remote.file("alpha"), "a") + "]"), 5, 1,
        "data"), false)).hasMessage("Invalid .dvcignore: " + temp.resolve(".dvcignore") + " (must be a regular file"
        + " or a symbolic link to one)");
  }

  @Test
  void aMissingContentStopsTheDownloadsKeepsTheVerifiedOnesAndARerunReadsOnlyWhatIsLacking() throws Exception {
    String alpha = remote.file("alpha");
    String beta = remote.file("beta");
    String gamma = md5("gamma".getBytes(StandardCharsets.UTF_8)); // not pushed yet
    DvcFile missingLast = new DvcFile(remote.listing("[" + entry(alpha, "a") + ", " + entry(beta, "b") + ", "
        + entry(gamma, "c") + "]"), 14, 3, "data");
    assertThat(gets(() -> assertThatThrownBy(() -> pullOneAtATime(missingLast, null))
        .hasMessageContaining("is missing from the DVC remote (dvc push it first)"))).isEqualTo(4); // the listing and the three contents, in order
    remote.file("gamma");
    assertThat(pullOneAtATime(missingLast, null).requests().get()).isEqualTo(2); // the listing and gamma
    assertThat(folder.resolve("a")).hasContent("alpha");
    assertThat(folder.resolve("c")).hasContent("gamma");

    // Missing first: nothing after it is read.
    String delta = md5("delta".getBytes(StandardCharsets.UTF_8));
    DvcFile missingFirst = new DvcFile(remote.listing("[" + entry(delta, "d") + ", " + entry(remote.file("eps"), "e")
        + ", " + entry(remote.file("zeta"), "z") + "]"), 12, 3, "data");
    Path other = Files.createDirectories(temp.resolve("other"));
    assertThat(gets(() -> {
      try (SyncSession session = new SyncSession(other, null, new CasRemote(dvc, "store", 1), QUIET)) {
        DvcPull.run(session, new DvcRemote(dvc, "store", missingFirst, "pull"),
            new Pull.Options("ignored", List.of(), false, null, false));
      }
    })).isEqualTo(2); // the listing and the missing content
  }

  @Test
  void aKeptContentIsHashedAgainBeforeItIsUsed() throws Exception {
    String alpha = remote.file("alpha");
    String beta = md5("beta".getBytes(StandardCharsets.UTF_8)); // not pushed yet
    DvcFile source = new DvcFile(remote.listing("[" + entry(alpha, "a") + ", " + entry(beta, "b") + "]"), 9, 2,
        "data");
    assertThatThrownBy(() -> pullOneAtATime(source, null)).hasMessageContaining("is missing from the DVC remote");
    Path kept = folder.resolve(".quarry/dvc-contents/" + alpha);
    assertThat(kept).hasContent("alpha");
    Files.writeString(kept, "alphx"); // changed while it waited

    remote.file("beta");
    assertThat(pullOneAtATime(source, null).requests().get()).isEqualTo(3); // the listing, alpha again, beta
    assertThat(folder.resolve("a")).hasContent("alpha");
    assertThat(kept).doesNotExist();
  }

  @Test
  void aPullDeletesNoFolderOfAnotherPullNorOfTheUserInTheStateFolder() throws Exception {
    DvcFile source = new DvcFile(remote.listing("[" + entry(remote.file("alpha"), "a") + "]"), 5, 1, "data");
    Path work = Files.createDirectories(temp.resolve("work"));
    Path notes = Files.writeString(Files.createDirectories(work.resolve("dvc-pull-notes")).resolve("n"), "mine");
    Path running = Files.createDirectories(work.resolve("dvc-pull-" + hostName() + "-" + ProcessHandle.current().pid()
        + "-" + java.util.UUID.randomUUID())).resolve("part");
    Files.writeString(running, "another pull's");

    pullOneAtATime(source, work);
    assertThat(folder.resolve("a")).hasContent("alpha");
    assertThat(notes).hasContent("mine");
    assertThat(running).hasContent("another pull's");

    // A state folder that holds the folder is refused before anything in it is touched.
    Path besideData = Files.writeString(Files.createDirectories(temp.resolve("dvc-pull-x")).resolve("n"), "mine");
    assertThatThrownBy(() -> pullOneAtATime(source, temp)).hasMessageStartingWith("Invalid state folder: ");
    assertThat(besideData).hasContent("mine");
  }

  private static String hostName() throws IOException {
    return Files.readString(Path.of("/proc/sys/kernel/hostname")).strip().replaceAll("[^A-Za-z0-9.]", "_");
  }

  @Test
  void aFileWhoseStateWasForgottenIsHashedAgainNotTakenForItsOldMd5() throws Exception {
    String alpha = remote.file("alpha");
    DvcFile source = new DvcFile(remote.listing("[" + entry(alpha, "a") + "]"), 5, 1, "data");
    pull(source, false);
    Path a = folder.resolve("a");
    var mtime = Files.getLastModifiedTime(a);
    Files.writeString(a, "alphx"); // same inode, same size...
    Files.setLastModifiedTime(a, mtime); // ...and same mtime, as a restore could leave it
    try (SyncSession session = session()) {
      session.state().forget(List.of(a.toString())); // as a scan does when the file was gone once
    }

    assertRefused(source, "1 local files differ from both the version they came from and the new one: a");
    assertThat(a).hasContent("alphx");
  }

  @Test
  void aDvcFileWithoutASizeIsRefusedInOneLine() throws Exception {
    String alpha = remote.file("alpha");
    Path file = Files.writeString(temp.resolve("a.dvc"), "outs:\n- md5: " + alpha + "\n  hash: md5\n  path: a\n");
    String why = "its out has no size (must declare the bytes it tracks, as DVC 3 always writes: every read from the"
        + " remote is bounded by it)";
    assertThatThrownBy(() -> DvcFile.read(file)).hasMessage("Invalid .dvc file " + file + ": " + why);
  }

  @Test
  void deleteExtraIsRefusedForADvcFileOfOneFile() throws Exception {
    DvcFile source = new DvcFile(new DvcHash(remote.file("alpha"), false), 5, -1, "a");
    Files.writeString(folder.resolve("notes"), "mine");
    try (SyncSession session = session()) {
      assertThatThrownBy(() -> DvcPull.run(session, new DvcRemote(dvc, "store", source, "pull"),
          new Pull.Options("ignored", List.of(), true, null, true)))
          .hasMessage("Cannot pull " + source.hash() + " with --delete-extra: its .dvc file tracks one file, not a"
              + " folder (--delete-extra would delete everything else in the folder)");
    }
    assertThat(folder.resolve("notes")).hasContent("mine");
    assertThat(folder.resolve("a")).doesNotExist();
  }

  @Test
  void aDownloadOntoAFileThatIsThereLeavesIt() throws Exception {
    String alpha = remote.file("alpha");
    Path existing = Files.writeString(temp.resolve("existing"), "mine");
    DvcRemote source = new DvcRemote(dvc, "store", new DvcFile(new DvcHash(alpha, false), 5, -1, "a"), "pull");
    assertThatThrownBy(() -> source.download(alpha, existing, java.util.Set.of()))
        .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
    assertThat(existing).hasContent("mine");
  }

  @Test
  void localMd5sAreCachedByFileIdentity() throws Exception {
    String alpha = remote.file("alpha");
    DvcFile source = new DvcFile(remote.listing("[" + entry(alpha, "a") + "]"), 5, 1, "data");
    Files.writeString(folder.resolve("a"), "alpha");
    Files.writeString(folder.resolve("b"), "beta");

    try (SyncSession session = session()) {
      LocalMd5s md5s = new LocalMd5s(session.state(), folder);
      var identity = dev.quarry.core.sync.local.FileIdentity.of(folder.resolve("b"));
      assertThat(md5s.of(folder.resolve("b"), identity).md5()).isEqualTo(md5("beta".getBytes(StandardCharsets.UTF_8)));
      md5s.save();
      LocalMd5s again = new LocalMd5s(session.state(), folder);
      again.of(folder.resolve("b"), identity);
      assertThat(again.hashed()).isZero();
    }
    assertThat(status(source).changes().added().paths()).containsExactly("b");
  }

  @Test
  void anMd5OfAFileStampedInTheClockTickItWasHashedInIsHashedAgain() throws Exception {
    // A write within that tick would keep the file's identity: the next look may not take the MD5 from its row.
    Path file = Files.writeString(folder.resolve("b"), "beta");
    Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 3_600_000));
    try (SyncSession session = session()) {
      LocalMd5s md5s = new LocalMd5s(session.state(), folder);
      var identity = dev.quarry.core.sync.local.FileIdentity.of(file);
      md5s.of(file, identity);
      md5s.save();
      LocalMd5s again = new LocalMd5s(session.state(), folder);
      again.of(file, identity);
      assertThat(again.hashed()).isEqualTo(1);
    }
  }
}
