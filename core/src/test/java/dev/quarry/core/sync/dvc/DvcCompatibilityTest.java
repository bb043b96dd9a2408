package dev.quarry.core.sync.dvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.SyncResult;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.pull.Pull;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the real DVC 3 pushes to a local-folder remote, Quarry imports, and a pull gives back byte for byte. */
class DvcCompatibilityTest {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  @TempDir Path temp;

  @Test
  void aFolderDvcPushedToALocalRemoteImportsAndPullsByteForByte() throws Exception {
    RealDvc dvc = new RealDvc(temp.resolve("project"), Map.of());
    Path data = dvc.dataset("data", 40, 1);
    Path remoteFolder = temp.resolve("dvc-remote");
    dvc.dvc("add", "-q", "data");
    dvc.dvc("remote", "add", "-d", "local", remoteFolder.toString());
    dvc.dvc("push", "-q");

    DvcFile source = DvcFile.read(dvc.project().resolve("data.dvc"));
    assertThat(source.hash().isDir()).isTrue();
    try (ObjectStore store = new FileStore(remoteFolder);
        ObjectStore quarry = new FileStore(temp.resolve("quarry"));
        SyncSession session = new SyncSession(Files.createDirectories(temp.resolve("work")), temp.resolve("state"),
            new CasRemote(quarry, "cas", 8), QUIET)) {
      CasRemote cas = session.remote();
      DvcImport.Result result = DvcImport.run(store, "", session, source, "v1", "tester");

      assertThat(result.files()).isEqualTo(41);
      assertThat(result.bytes()).isEqualTo(source.size());
      RealDvc.assertPulledEqual(cas, "v1", data, temp.resolve("pulled"));

      // A single tracked file imports as a version of one file, named as DVC tracks it.
      Files.writeString(dvc.project().resolve("labels.csv"), "id,label\n1,cat\n");
      dvc.dvc("add", "-q", "labels.csv");
      dvc.dvc("push", "-q");
      DvcImport.run(store, "", session, DvcFile.read(dvc.project().resolve("labels.csv.dvc")), "labels", "tester");
      assertThat(Files.readString(pulled(cas, "labels", temp.resolve("labels")).resolve("labels.csv")))
          .isEqualTo("id,label\n1,cat\n");
    }
  }

  @Test
  void statusAndPullReadStraightFromWhatDvcPushedToALocalRemote() throws Exception {
    RealDvc dvc = new RealDvc(temp.resolve("project"), Map.of());
    // Quarry keeps its state in data/.quarry: DVC must not track it (docs/formats.md says to ignore it so).
    Files.writeString(dvc.project().resolve(".dvcignore"), ".quarry/\n");
    Path data = dvc.dataset("data", 40, 3);
    Path remoteFolder = temp.resolve("dvc-remote");
    dvc.dvc("add", "-q", "data");
    dvc.dvc("remote", "add", "-d", "local", remoteFolder.toString());
    dvc.dvc("push", "-q");
    Path dvcFile = dvc.project().resolve("data.dvc");

    try (ObjectStore store = new FileStore(temp)) {
      String prefix = "dvc-remote";
      // The DVC workspace itself is the version: nothing differs, nothing is missing.
      SyncResult clean = RealDvc.statusFromDvc(store, prefix, dvcFile, data);
      assertThat(clean.differs()).as("%s", clean.changes()).isFalse();

      Path pulled = temp.resolve("pulled");
      SyncResult first = RealDvc.pullFromDvc(store, prefix, dvcFile, data, pulled);
      assertThat(first.files()).isEqualTo(41);
      assertThat(RealDvc.statusFromDvc(store, prefix, dvcFile, pulled).differs()).isFalse();

      // DVC pushes a new version (one file changed, one added, one deleted): status names them, pull reads 2 files.
      Files.write(data.resolve("part-0/f4"), new byte[] {1, 2, 3});
      Files.writeString(data.resolve("part-3/new.txt"), "new");
      Files.delete(data.resolve("part-2/f2"));
      dvc.dvc("add", "-q", "data");
      dvc.dvc("push", "-q");
      SyncResult changed = RealDvc.statusFromDvc(store, prefix, dvcFile, pulled);
      assertThat(changed.changes().modified().paths()).containsExactly("part-0/f4");
      assertThat(changed.changes().deleted().paths()).containsExactly("part-3/new.txt");
      assertThat(changed.changes().added().paths()).containsExactly("part-2/f2");
      assertThat(changed.changes().notOnRemote().isEmpty()).isTrue(); // f2 was pushed with the first version

      SyncResult second = RealDvc.pullFromDvc(store, prefix, dvcFile, data, temp.resolve("pulled-again"));
      assertThat(second.files()).isEqualTo(41);
      Files.delete(pulled.resolve("part-2/f2")); // pull keeps files it does not know are extra, as every pull
      SyncResult update = RealDvc.pullFromDvc(store, prefix, dvcFile, data, pulled);
      assertThat(update.transferred().objects()).isEqualTo(2);
      assertThat(update.requests().get()).isEqualTo(3); // the .dir listing and the two new contents
    }
  }

  private static Path pulled(CasRemote cas, String version, Path into) throws Exception {
    try (SyncSession session = new SyncSession(into, null, cas, QUIET)) {
      Pull.run(session, new Pull.Options(version, List.of(), false, null));
    }
    return into;
  }

  /**
   * DVC leaves out of a folder it hashes what the {@code .dvcignore} files of its project ignore, from the project's
   * top down to the folder's parent (a deeper file's rules after a higher one's, each relative to its own folder),
   * and {@code .git}, {@code .hg} and {@code .dvc} folders: status shows none of them as added, a pull with
   * --delete-extra keeps them, and a pull writes DVC's files only.
   */
  @Test
  void statusAndPullLeaveOutWhatTheDvcignoreFilesAboveTheFolderIgnore() throws Exception {
    RealDvc dvc = new RealDvc(temp.resolve("project"), Map.of());
    Files.writeString(dvc.project().resolve(".dvcignore"), ".quarry/\n*.tmp\n  /group/data/cache/  \n/data/x\n");
    Path data = dvc.dataset("group/data", 12, 5);
    Files.writeString(data.getParent().resolve(".dvcignore"), "# notes stay local\n/data/notes.txt\n!keep.tmp\n");
    Files.writeString(data.resolve("scratch.tmp"), "scratch");
    Files.writeString(data.resolve("part-1/deeper.tmp"), "deeper");
    Files.writeString(data.resolve("keep.tmp"), "kept by the deeper .dvcignore");
    Files.writeString(Files.createDirectories(data.resolve("cache")).resolve("big.bin"), "cache");
    Files.writeString(data.resolve("notes.txt"), "notes");
    Files.writeString(Files.createDirectories(data.resolve("part-2/.git")).resolve("HEAD"), "ref: main");
    Files.writeString(data.resolve("x"), "not ignored: /data/x is the project's data, not group's");
    Path remoteFolder = temp.resolve("dvc-remote");
    dvc.dvc("add", "-q", "group/data");
    dvc.dvc("remote", "add", "-d", "local", remoteFolder.toString());
    dvc.dvc("push", "-q");
    Path dvcFile = dvc.project().resolve("group/data.dvc");

    try (ObjectStore store = new FileStore(temp)) {
      SyncResult clean = RealDvc.statusFromDvc(store, "dvc-remote", dvcFile, data);
      assertThat(clean.differs()).as("%s", clean.changes()).isFalse();

      Path pulled = temp.resolve("pulled");
      SyncResult fresh = RealDvc.pullFromDvc(store, "dvc-remote", dvcFile, data, pulled, List.of(
          "scratch.tmp", "part-1/deeper.tmp", "cache/big.bin", "notes.txt", "part-2/.git/HEAD"));
      assertThat(fresh.files()).isEqualTo(13 + 2);
      assertThat(Files.readString(pulled.resolve("keep.tmp"))).isEqualTo("kept by the deeper .dvcignore");

      try (SyncSession session = new SyncSession(data, null, new CasRemote(store, "dvc-remote", 8), QUIET)) {
        DvcPull.run(session, new DvcRemote(store, "dvc-remote", DvcFile.read(dvcFile), "pull"),
            new Pull.Options("", List.of(), true, null));
      }
      assertThat(data.resolve("scratch.tmp")).as("ignored, so not extra").hasContent("scratch");
      assertThat(data.resolve("cache/big.bin")).hasContent("cache");
      assertThat(data.resolve("part-2/.git/HEAD")).hasContent("ref: main");

      Files.writeString(data.resolve("part-1/.dvcignore"), "*.bin\n");
      assertThatThrownBy(() -> RealDvc.statusFromDvc(store, "dvc-remote", dvcFile, data)).hasMessage(
          "Cannot compare " + data.resolve("part-1/.dvcignore") + " with a DVC version: DVC refuses a .dvcignore"
              + " inside a folder it tracks (move its rules to a .dvcignore above the folder)");
    }
  }

  /** DVC follows a .dvcignore that is a symbolic link, and so do status and pull: what it ignores is left out. */
  @Test
  void aDvcignoreThatIsALinkIsFollowedAsDvcFollowsIt() throws Exception {
    RealDvc dvc = new RealDvc(temp.resolve("project"), Map.of());
    Files.writeString(dvc.project().resolve("shared-ignore"), ".quarry/\n*.tmp\n");
    Files.deleteIfExists(dvc.project().resolve(".dvcignore"));
    Files.createSymbolicLink(dvc.project().resolve(".dvcignore"), Path.of("shared-ignore"));
    Path data = dvc.dataset("data", 6, 2);
    Files.writeString(data.resolve("scratch.tmp"), "scratch");
    dvc.dvc("add", "-q", "data");
    dvc.dvc("remote", "add", "-d", "local", temp.resolve("dvc-remote").toString());
    dvc.dvc("push", "-q");
    Path dvcFile = dvc.project().resolve("data.dvc");
    assertThat(DvcFile.read(dvcFile).files()).as("DVC left scratch.tmp out").isEqualTo(7);

    try (ObjectStore store = new FileStore(temp)) {
      SyncResult clean = RealDvc.statusFromDvc(store, "dvc-remote", dvcFile, data);
      assertThat(clean.differs()).as("%s", clean.changes()).isFalse();
    }
  }
}
