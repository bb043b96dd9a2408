package dev.quarry.core.sync.dvc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.ObjectStore;
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

  private static Path pulled(CasRemote cas, String version, Path into) throws Exception {
    try (SyncSession session = new SyncSession(into, null, cas, QUIET)) {
      Pull.run(session, new Pull.Options(version, List.of(), false, null));
    }
    return into;
  }
}
