package dev.quarry.core.sync.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.EntryType;
import dev.quarry.core.sync.cas.TreeEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TreeScannerTest {
  @TempDir Path temp;

  @Test
  void unchangedFilesAreNeverReadTwiceAndChangedOnesAre() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data/a/b"));
    Files.writeString(data.resolve("one.txt"), "one");
    Files.writeString(temp.resolve("data/two.txt"), "two");
    try (StateDatabase state = StateDatabase.open(temp.resolve("state/state.db"))) {
      TreeScanner scanner = new TreeScanner(state, 2, Set.of(), line -> {});
      LocalTree first = scanner.scan(temp.resolve("data"));
      assertThat(first.hashedFiles()).isEqualTo(2);
      LocalTree second = scanner.scan(temp.resolve("data"));
      assertThat(second.hashedFiles()).isZero();
      assertThat(second.root()).isEqualTo(first.root());

      Path two = temp.resolve("data/two.txt");
      FileTime mtime = Files.getLastModifiedTime(two);
      Files.writeString(two, "TWO"); // same size, and the mtime put back: a new inode still gives it away
      Files.setLastModifiedTime(two, mtime);
      Path replacement = temp.resolve("data/replacement");
      Files.writeString(replacement, "222");
      Files.setLastModifiedTime(replacement, mtime);
      Files.move(replacement, two, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      LocalTree third = scanner.scan(temp.resolve("data"));
      assertThat(third.hashedFiles()).isEqualTo(1);
      assertThat(third.root()).isNotEqualTo(first.root());
    }
  }

  @Test
  void aFileRewrittenWithinTheClockTickItWasHashedInIsSeenByTheNextScan() throws Exception {
    // A write in the same tick of the file system's clock as the one hashed keeps the file's (inode, mtime, size):
    // stamped at or after the scan began, a file must not be trusted by the next scan, through its folder's listing
    // or its file row. The tick is made long here by giving the file a time the clock has not reached.
    Path data = Files.createDirectories(temp.resolve("data/sub"));
    Path racy = data.resolve("racy.txt");
    Path settled = temp.resolve("data/settled.txt");
    Files.writeString(racy, "one");
    Files.writeString(settled, "old");
    FileTime tick = FileTime.fromMillis(System.currentTimeMillis() + 3_600_000);
    Files.setLastModifiedTime(racy, tick);
    Files.setLastModifiedTime(settled, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
    try (StateDatabase state = StateDatabase.open(temp.resolve("state/state.db"))) {
      TreeScanner scanner = new TreeScanner(state, 2, Set.of(), line -> {});
      LocalTree first = scanner.scan(temp.resolve("data"));
      assertThat(first.hashedFiles()).isEqualTo(2);

      Files.writeString(racy, "two"); // in place: the same inode and size
      Files.setLastModifiedTime(racy, tick);
      LocalTree second = scanner.scan(temp.resolve("data"));
      assertThat(second.hashedFiles()).as("only the file stamped in the scan's tick is read again").isEqualTo(1);
      assertThat(second.root()).isNotEqualTo(first.root());
      assertThat(digestOf(second, "sub", "racy.txt")).isEqualTo(Digest.of("two".getBytes()));

      // Its row is not trusted while the clock has not passed its time, whichever path the scan takes to it.
      state.forgetFolders(List.of(data.toString(), temp.resolve("data").toString()));
      Files.writeString(racy, "333");
      Files.setLastModifiedTime(racy, tick);
      LocalTree third = scanner.scan(temp.resolve("data"));
      assertThat(digestOf(third, "sub", "racy.txt")).isEqualTo(Digest.of("333".getBytes()));
    }
  }

  @Test
  void aFileWrittenAfterTheScanBeganIsNotTrustedThoughTheClockHasPassedItWhenItIsRecorded() throws Exception {
    // A scan long under way: the file was written (and may be written again within that tick) after it began.
    Path data = Files.createDirectories(temp.resolve("data"));
    Path file = Files.writeString(data.resolve("file.txt"), "one");
    long written = System.currentTimeMillis() - 10_000;
    Files.setLastModifiedTime(file, FileTime.fromMillis(written));
    FileClock scanBeganBefore = new FileClock(temp.resolve("state")) {
      @Override
      public Horizon beforeLooking(Path looked) {
        return new Horizon((written - 5_000) * 1_000_000L);
      }
    };
    try (StateDatabase state = StateDatabase.open(temp.resolve("state/state.db"), scanBeganBefore)) {
      TreeScanner scanner = new TreeScanner(state, 2, Set.of(), line -> {});
      scanner.scan(data);
      Files.writeString(file, "two");
      Files.setLastModifiedTime(file, FileTime.fromMillis(written));
      LocalTree second = scanner.scan(data);
      assertThat(second.top().manifest().entries().getFirst().digest()).isEqualTo(Digest.of("two".getBytes()));
    }
  }

  private static Digest digestOf(LocalTree tree, String folder, String file) throws Exception {
    LocalDirectory sub = tree.top().subdirectories().get(folder);
    return sub.manifest().entries().stream().filter(entry -> entry.name().equals(file)).findFirst().orElseThrow()
        .digest();
  }

  @Test
  void aBigFolderWalkedOnAllCoresGivesWhatTheSequentialWalkGivesAndMissesNoChange() throws Exception {
    // More entries than one manifest holds: their lstat runs on all cores. Files, links, folders, mixed.
    Path data = Files.createDirectories(temp.resolve("data"));
    for (int i = 0; i < 6000; i++) {
      String name = String.format("f%05d", i);
      if (i % 1000 == 7) {
        Files.createDirectories(data.resolve(name)).resolve("inside").toFile().createNewFile();
      } else if (i % 100 == 3) {
        Files.createSymbolicLink(data.resolve(name), Path.of("target-" + i));
      } else {
        Files.writeString(data.resolve(name), i % 10 == 0 ? "content " + i : "");
      }
    }
    try (StateDatabase state = StateDatabase.open(temp.resolve("state/state.db"))) {
      TreeScanner parallel = new TreeScanner(state, 4, Set.of(), line -> {});
      LocalTree first = parallel.scan(data);
      assertThat(first.files()).isEqualTo(6000);
      assertThat(first.root()).isEqualTo(freshSequentialScan(data));

      Files.writeString(data.resolve("f00010"), "content 10, longer"); // content
      Files.move(data.resolve("f00020"), data.resolve("f00020-renamed")); // name
      Files.setPosixFilePermissions(data.resolve("f00030"), java.nio.file.attribute.PosixFilePermissions
          .fromString("rwxr-x---")); // mode, nothing else
      Files.delete(data.resolve("f00103"));
      Files.createSymbolicLink(data.resolve("f00103"), Path.of("another-target")); // link target
      LocalTree second = parallel.scan(data);
      assertThat(second.hashedFiles()).isEqualTo(2); // the new content, and the renamed file under its new path
      assertThat(second.root()).isNotEqualTo(first.root()).isEqualTo(freshSequentialScan(data));
      assertThat(second.top().manifest().entries()).extracting(TreeEntry::name).contains("f00020-renamed")
          .doesNotContain("f00020");
    }
  }

  @Test
  void aFolderFoundAsListedTakesItsDigestsFromItsListingWithoutTheFileRows() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data"));
    for (int d = 0; d < 3; d++) {
      for (int f = 0; f < 5; f++) {
        Files.writeString(Files.createDirectories(data.resolve("d" + d)).resolve("f" + f), "content " + d + f);
      }
    }
    try (StateDatabase state = StateDatabase.open(temp.resolve("state/state.db"))) {
      TreeScanner scanner = new TreeScanner(state, 2, Set.of(), line -> {});
      LocalTree first = scanner.scan(data);
      // Without any file row, only the folders' listings can spare reading the files again.
      state.forgetFilesUnder(java.util.List.of(data.toString()));
      LocalTree second = scanner.scan(data);
      assertThat(second.hashedFiles()).isZero();
      assertThat(second.root()).isEqualTo(first.root());
      assertThat(second.top().subdirectories().get("d1").manifest().entries()).extracting(TreeEntry::name)
          .containsExactly("f0", "f1", "f2", "f3", "f4"); // built from the listing when asked, checked by digest
      assertThat(second.top().subdirectories().get("d1").manifest().encoded())
          .isEqualTo(first.top().subdirectories().get("d1").manifest().encoded());

      Files.writeString(data.resolve("d1/f2"), "changed!!!");
      LocalTree third = scanner.scan(data);
      assertThat(third.hashedFiles()).isEqualTo(1); // the other files of d1 take their digests from its listing
      assertThat(third.root()).isEqualTo(freshSequentialScan(data));
    }
  }

  @Test
  void everyChangeToANestedTreeIsSeenThoughItsFoldersAreListed() throws Exception {
    // Each step changes what lstat shows in a way a listing could hide if a shortcut were wrong; after each, the scan
    // with the listings of the steps before must give the root a fresh scan gives.
    Path data = Files.createDirectories(temp.resolve("data"));
    for (int d = 0; d < 4; d++) {
      for (int f = 0; f < 4; f++) {
        Files.writeString(Files.createDirectories(data.resolve("d" + d + "/inner")).resolve("f" + f), "c" + d + f);
      }
    }
    List<ThrowingStep> steps = List.of(
        () -> { // two files of the same size and mtime swap names: only their inodes tell
          FileTime mtime = Files.getLastModifiedTime(data.resolve("d0/inner/f0"));
          Files.setLastModifiedTime(data.resolve("d0/inner/f1"), mtime);
          Files.move(data.resolve("d0/inner/f0"), data.resolve("d0/inner/tmp"));
          Files.move(data.resolve("d0/inner/f1"), data.resolve("d0/inner/f0"));
          Files.move(data.resolve("d0/inner/tmp"), data.resolve("d0/inner/f1"));
        },
        () -> Files.setPosixFilePermissions(data.resolve("d1/inner/f2"), PosixFilePermissions.fromString("rwx------")),
        () -> Files.setPosixFilePermissions(data.resolve("d1/inner"), PosixFilePermissions.fromString("rwx------")),
        () -> Files.move(data.resolve("d2"), data.resolve("d2-renamed")), // a folder renamed, its files as they were
        () -> Files.move(data.resolve("d3/inner"), data.resolve("d0/moved")), // a folder moved under another
        () -> { // a file deleted and another added: the same count
          Files.delete(data.resolve("d1/inner/f0"));
          Files.writeString(data.resolve("d1/inner/g0"), "c10");
        },
        () -> { // a file replaced by a link, a link's target changed
          Files.delete(data.resolve("d1/inner/f1"));
          Files.createSymbolicLink(data.resolve("d1/inner/f1"), Path.of("f3"));
        },
        () -> {
          Files.delete(data.resolve("d1/inner/f1"));
          Files.createSymbolicLink(data.resolve("d1/inner/f1"), Path.of("f2"));
        },
        () -> { // a folder replaced by a file of the same name, and an empty folder added
          deleteTree(data.resolve("d0/moved"));
          Files.writeString(data.resolve("d0/moved"), "now a file");
          Files.createDirectories(data.resolve("d3/empty"));
        },
        () -> Files.writeString(data.resolve("d1/inner/f3"), "c13, longer")); // content, in place
    try (StateDatabase state = StateDatabase.open(temp.resolve("state/state.db"))) {
      TreeScanner scanner = new TreeScanner(state, 2, Set.of(), line -> {});
      Digest before = scanner.scan(data).root();
      for (int i = 0; i < steps.size(); i++) {
        steps.get(i).run();
        Digest after = scanner.scan(data).root();
        assertThat(after).as("step %d", i).isNotEqualTo(before).isEqualTo(freshSequentialScan(data));
        assertThat(scanner.scan(data).root()).as("step %d, scanned again", i).isEqualTo(after);
        before = after;
      }
    }
  }

  @Test
  void everyChangeToAChunkedFolderIsSeenThoughItsChunksAreTakenAsRecorded() throws Exception {
    // A folder of more entries than one manifest holds, built from the chunks its listing recorded but for those a
    // change touches: after each step the root must be the one a fresh scan gives, and again on a second scan.
    Path data = Files.createDirectories(temp.resolve("data"));
    for (int i = 0; i < 9000; i++) {
      String name = String.format("f%05d", i);
      if (i % 1000 == 7) {
        Files.writeString(Files.createDirectories(data.resolve(name)).resolve("inside"), "in " + i);
      } else if (i % 500 == 3) {
        Files.createSymbolicLink(data.resolve(name), Path.of("target-" + i));
      } else {
        Files.writeString(data.resolve(name), i % 10 == 0 ? "content " + i : "");
      }
    }
    List<ThrowingStep> steps = List.of(
        () -> Files.writeString(data.resolve("f04010"), "content 4010, longer"), // a content
        () -> Files.writeString(data.resolve("f02007/inside"), "changed"), // a subfolder's, the folder as listed
        () -> Files.setPosixFilePermissions(data.resolve("f06001"), PosixFilePermissions.fromString("rwx------")),
        () -> Files.delete(data.resolve("f05555")),
        () -> Files.writeString(data.resolve("f05555b"), ""),
        () -> { // a link's target
          Files.delete(data.resolve("f00503"));
          Files.createSymbolicLink(data.resolve("f00503"), Path.of("elsewhere"));
        },
        () -> Files.move(data.resolve("f08888"), data.resolve("g-renamed")), // from the middle to the end
        () -> { // two files of the same size and mtime swap names: only their inodes tell
          FileTime mtime = Files.getLastModifiedTime(data.resolve("f07010"));
          Files.writeString(data.resolve("f07011"), "content 7011");
          Files.setLastModifiedTime(data.resolve("f07011"), mtime);
          Files.setLastModifiedTime(data.resolve("f07010"), mtime);
          Files.move(data.resolve("f07010"), data.resolve("tmp"));
          Files.move(data.resolve("f07011"), data.resolve("f07010"));
          Files.move(data.resolve("tmp"), data.resolve("f07011"));
        },
        () -> { // a file replaced by a folder of the same name
          Files.delete(data.resolve("f03333"));
          Files.writeString(Files.createDirectories(data.resolve("f03333")).resolve("x"), "x");
        },
        () -> { // down to one manifest, then chunked again
          for (int i = 0; i < 6000; i++) {
            Path path = data.resolve(String.format("f%05d", i));
            if (Files.isDirectory(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
              deleteTree(path);
            } else {
              Files.deleteIfExists(path);
            }
          }
        },
        () -> {
          for (int i = 0; i < 6000; i++) {
            Files.writeString(data.resolve(String.format("h%05d", i)), "h");
          }
        });
    try (StateDatabase state = StateDatabase.open(temp.resolve("state/state.db"))) {
      TreeScanner scanner = new TreeScanner(state, 2, Set.of(), line -> {});
      LocalTree first = scanner.scan(data);
      assertThat(first.top().manifest().isChunked()).isTrue();
      Digest before = first.root();
      for (int i = 0; i < steps.size(); i++) {
        steps.get(i).run();
        LocalTree after = scanner.scan(data);
        assertThat(after.root()).as("step %d", i).isNotEqualTo(before).isEqualTo(freshSequentialScan(data));
        assertThat(scanner.scan(data).root()).as("step %d, scanned again", i).isEqualTo(after.root());
        before = after.root();
      }
    }
  }

  @Test
  void aDatabaseFromBeforeListingsIsReadWholeOnceAndListsItsFolders() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data/sub"));
    Files.writeString(data.resolve("one"), "one");
    Path database = temp.resolve("state/state.db");
    Digest root;
    try (StateDatabase state = StateDatabase.open(database)) {
      root = new TreeScanner(state, 1, Set.of(), line -> {}).scan(temp.resolve("data")).root();
    }
    try (var connection = java.sql.DriverManager.getConnection("jdbc:sqlite:" + database);
        var statement = connection.createStatement()) {
      statement.execute("DROP TABLE folder_state");
      statement.execute("PRAGMA user_version = 0");
    }
    try (StateDatabase state = StateDatabase.open(database)) {
      TreeScanner scanner = new TreeScanner(state, 1, Set.of(), line -> {});
      LocalTree upgraded = scanner.scan(temp.resolve("data"));
      assertThat(upgraded.hashedFiles()).isZero(); // the file rows still hold
      assertThat(upgraded.root()).isEqualTo(root);
      state.forgetFilesUnder(List.of(temp.resolve("data").toString()));
      assertThat(scanner.scan(temp.resolve("data")).hashedFiles()).isZero(); // the folders are listed now
    }
    try (var connection = java.sql.DriverManager.getConnection("jdbc:sqlite:" + database);
        var statement = connection.createStatement();
        var version = statement.executeQuery("PRAGMA user_version")) {
      assertThat(version.getInt(1)).isEqualTo(StateDatabase.FORMAT_VERSION);
    }
  }

  private interface ThrowingStep {
    void run() throws Exception;
  }

  private static void deleteTree(Path folder) throws Exception {
    try (var paths = Files.walk(folder)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  /** The root digest a scan on one thread with an empty state database gives: every file read and hashed. */
  private Digest freshSequentialScan(Path data) throws Exception {
    Path database = Files.createTempDirectory(temp, "fresh").resolve("state.db");
    try (StateDatabase state = StateDatabase.open(database)) {
      return new TreeScanner(state, 1, Set.of(), line -> {}).scan(data).root();
    }
  }

  @Test
  void symlinksAreEntriesEmptyFoldersCountAndSpecialFilesAreLeftOutWithAWarning() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data"));
    Files.createDirectories(data.resolve("empty"));
    Files.createSymbolicLink(data.resolve("link"), Path.of("/etc/passwd"));
    Files.createFile(data.resolve("zero"));
    Process mkfifo = new ProcessBuilder("mkfifo", data.resolve("pipe").toString()).start();
    assertThat(mkfifo.waitFor()).isZero();
    Files.createDirectories(data.resolve(".quarry"));
    Files.writeString(data.resolve(".quarry/ignored"), "state");
    try (StateDatabase state = StateDatabase.open(temp.resolve("state.db"))) {
      LocalTree tree = new TreeScanner(state, 1, Set.of(data.resolve(".quarry")), line -> {}).scan(data);
      assertThat(tree.top().manifest().entries()).extracting(TreeEntry::name, TreeEntry::type).containsExactly(
          org.assertj.core.groups.Tuple.tuple("empty", EntryType.DIRECTORY),
          org.assertj.core.groups.Tuple.tuple("link", EntryType.SYMLINK),
          org.assertj.core.groups.Tuple.tuple("zero", EntryType.FILE));
      assertThat(tree.top().manifest().entries().get(1).target()).isEqualTo("/etc/passwd");
      assertThat(tree.warnings()).singleElement().asString().contains("pipe").contains("not a regular file");
    }
  }

  @Test
  void theStateFolderOfANestedSyncRootIsLeftOut() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data"));
    Files.createDirectories(data.resolve("sub/.quarry/remotes"));
    Files.writeString(data.resolve("sub/.quarry/remotes/planted.db"), "state");
    Files.writeString(data.resolve("sub/f"), "f");
    try (StateDatabase state = StateDatabase.open(temp.resolve("state.db"))) {
      LocalTree tree = new TreeScanner(state, 1, Set.of(), line -> {}).scan(data);
      assertThat(tree.files()).isEqualTo(1);
      assertThat(tree.manifests().values()).noneMatch(manifest -> manifest.entries().stream()
          .anyMatch(entry -> entry.name().equals(".quarry")));
    }
  }

  @Test
  void aMissingFolderIsAClearError() throws Exception {
    try (StateDatabase state = StateDatabase.open(temp.resolve("state.db"))) {
      assertThatThrownBy(() -> new TreeScanner(state, 1, Set.of(), line -> {}).scan(temp.resolve("nope")))
          .hasMessage("Cannot scan " + temp.resolve("nope") + ": it does not exist");
    }
  }
}
