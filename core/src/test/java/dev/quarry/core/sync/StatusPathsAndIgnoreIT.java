package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.store.S3Store;
import dev.quarry.core.sync.pull.Pull;
import dev.quarry.core.sync.push.Push;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Status names the paths that differ, and the folder's .quarryignore keeps paths out of scan, status and push and
 * away from a pull's --delete-extra: on the filesystem store and on a real MinIO.
 */
@ExtendWith(MinioExtension.class)
class StatusPathsAndIgnoreIT {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  private final MinioServer minio;
  @TempDir Path temp;
  private ObjectStore store;
  private CasRemote remote;

  StatusPathsAndIgnoreIT(MinioServer minio) {
    this.minio = minio;
  }

  private void open(String kind) throws IOException {
    if (kind.equals("file")) {
      store = new FileStore(Files.createDirectories(temp.resolve("store")));
    } else {
      store = S3Store.open(minio.createBucket("paths"), S3Settings.defaults().withEndpoint(minio.endpoint())
          .withCredentials(minio.accessKey(), minio.secretKey()));
    }
    remote = new CasRemote(store, "cas/dataset", 16);
  }

  @AfterEach
  void close() throws IOException {
    if (store != null) {
      store.close();
    }
  }

  private SyncResult push(Path folder) throws IOException {
    try (SyncSession session = new SyncSession(folder, null, remote, QUIET)) {
      return Push.run(session, "latest", Push.Options.defaults());
    }
  }

  private SyncResult status(Path folder) throws IOException {
    try (SyncSession session = new SyncSession(folder, null, remote, QUIET)) {
      return StatusCheck.run(session, "latest");
    }
  }

  private static Path write(Path folder, String path, String content) throws IOException {
    Path file = folder.resolve(path);
    Files.createDirectories(file.getParent());
    return Files.writeString(file, content);
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "minio"})
  void statusNamesWhatWasAddedModifiedDeletedAndWhatTheRemoteLacks(String kind) throws Exception {
    open(kind);
    Path data = temp.resolve("data");
    write(data, "keep.txt", "keep");
    write(data, "edit.txt", "before");
    write(data, "gone.txt", "gone");
    write(data, "old/a.txt", "a");
    write(data, "old/deep/b.txt", "b");
    write(data, "mode.sh", "#!/bin/sh");
    write(data, "images/1.jpg", "one");

    SyncResult first = status(data);
    assertThat(first.changes().added().paths()).as("no ref yet: everything is new").containsExactly("edit.txt",
        "gone.txt", "images/1.jpg", "keep.txt", "mode.sh", "old/a.txt", "old/deep/b.txt");
    assertThat(first.changes().notOnRemote().count()).isEqualTo(7);
    assertThat(first.differs()).isTrue();

    push(data);
    SyncResult clean = status(data);
    assertThat(clean.changes().any()).isFalse();
    assertThat(clean.differs()).isFalse();

    write(data, "edit.txt", "after");
    Files.delete(data.resolve("gone.txt"));
    Files.delete(data.resolve("old/deep/b.txt"));
    Files.delete(data.resolve("old/deep"));
    Files.delete(data.resolve("old/a.txt"));
    Files.delete(data.resolve("old"));
    write(data, "images/2.jpg", "one"); // content the remote has: added, but nothing to upload
    write(data, "new/x.txt", "x");
    Files.setPosixFilePermissions(data.resolve("mode.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));

    SyncResult changed = status(data);
    StatusChanges changes = changed.changes();
    assertThat(changes.added().paths()).containsExactly("images/2.jpg", "new/x.txt");
    assertThat(changes.modified().paths()).containsExactly("edit.txt", "mode.sh");
    assertThat(changes.deleted().paths()).as("a folder gone whole is one path").containsExactly("gone.txt", "old/");
    assertThat(changes.notOnRemote().paths()).containsExactly("edit.txt", "new/x.txt");
    assertThat(changed.requests().get()).as("naming paths reads nothing more: the gc generation, the ref, and the"
        + " manifests of the two folders both sides have (the top and images/)").isEqualTo(4);
    assertThat(changed.withPathsSampled(1, 10).changes().added()).isEqualTo(new PathList(2, List.of("images/...")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "minio"})
  void theIgnoreFileKeepsPathsOutOfScanStatusPushAndDeleteExtra(String kind) throws Exception {
    open(kind);
    Path data = temp.resolve("data");
    write(data, ".quarryignore", "# scratch\n*.tmp\nbuild/\n!keep.tmp\n/top-only.txt\n");
    write(data, "train/a.txt", "a");
    write(data, "train/b.tmp", "tmp");
    write(data, "keep.tmp", "kept");
    write(data, "build/out.bin", "out");
    write(data, "top-only.txt", "top");
    write(data, "train/top-only.txt", "deeper: not ignored");

    SyncResult pushed = push(data);
    assertThat(pushed.files()).as(".quarryignore, train/a.txt, keep.tmp, train/top-only.txt").isEqualTo(4);
    write(data, "build/more.bin", "more");
    write(data, "train/c.tmp", "tmp");
    assertThat(status(data).differs()).as("only ignored paths changed").isFalse();

    Path copy = temp.resolve("copy");
    try (SyncSession session = new SyncSession(copy, null, remote, QUIET)) {
      Pull.run(session, new Pull.Options("latest", List.of(), false, null));
    }
    assertThat(copy.resolve("train/b.tmp")).doesNotExist();
    assertThat(copy.resolve("build")).doesNotExist();
    assertThat(copy.resolve("keep.tmp")).hasContent("kept");

    write(copy, "cache/x.tmp", "local scratch, ignored");
    write(copy, "build/local.bin", "ignored folder");
    write(copy, "stray.txt", "not ignored: deleted");
    try (SyncSession session = new SyncSession(copy, null, remote, QUIET)) {
      Pull.run(session, new Pull.Options("latest", List.of(), true, null, true));
    }
    assertThat(copy.resolve("cache/x.tmp")).as("ignored, and its folder kept for it").hasContent(
        "local scratch, ignored");
    assertThat(copy.resolve("build/local.bin")).exists();
    assertThat(copy.resolve("stray.txt")).doesNotExist();
  }
}
