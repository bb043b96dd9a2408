package dev.quarry.core.sync.dvc;

import static dev.quarry.core.sync.dvc.HandMadeDvcRemote.entry;
import static dev.quarry.core.sync.dvc.HandMadeDvcRemote.md5;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DVC remotes written by hand, as a hostile or broken one could be: every refusal is one line, and nothing is
 * imported (no ref); and what an import reuses when the content is already there.
 */
class DvcImportTest {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  @TempDir Path temp;
  private ObjectStore dvc;
  private HandMadeDvcRemote remote;
  private CasRemote cas;

  @BeforeEach
  void open() {
    dvc = new FileStore(temp.resolve("dvc"));
    remote = new HandMadeDvcRemote(dvc, "");
    cas = new CasRemote(new FileStore(temp.resolve("quarry")), "cas", 4);
  }

  @AfterEach
  void close() throws IOException {
    dvc.close();
    cas.store().close();
  }

  private DvcImport.Result importAs(DvcFile source, String ref) throws IOException {
    Path work = Files.createDirectories(temp.resolve("work"));
    try (SyncSession session = new SyncSession(work, temp.resolve("state"), cas, QUIET)) {
      return DvcImport.run(dvc, "", session, source, ref, "tester");
    }
  }

  private void assertRefused(DvcFile source, String message) throws IOException {
    assertThatThrownBy(() -> importAs(source, "latest"))
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").matches("(Cannot|Invalid) .*"))
        .hasMessageContaining(message);
    assertThat(cas.readRef("latest")).isEmpty();
  }

  @Test
  void pathsThatCouldEscapeAreRefused() throws Exception {
    String a = remote.file("a");
    for (HandMadeDvcRemote.Hostile hostile : HandMadeDvcRemote.hostileListings(a)) {
      assertRefused(new DvcFile(remote.listing("[" + hostile.entries() + "]"), hostile.files(), hostile.files(),
          "data"), hostile.refusal());
    }
  }

  @Test
  void aListingLargerThanItsDvcFileDeclaresIsRefusedWhileItIsRead() throws Exception {
    String a = remote.file("a");
    StringBuilder huge = new StringBuilder("[");
    for (int i = 0; i < 5000; i++) {
      huge.append(i == 0 ? "" : ", ").append(entry(a, "f" + i));
    }
    DvcHash hash = remote.listing(huge.append("]").toString());

    assertRefused(new DvcFile(hash, 5000, 1, "data"), "is larger than 8402 bytes (more than 1 files may take");
    assertRefused(new DvcFile(hash, 5000, 4000, "data"), "it holds more than 4000 files");
    assertRefused(new DvcFile(hash, 5000, 5001, "data"), "its .dvc file declares 5001 files, but its listing holds"
        + " 5000");
  }

  @Test
  void contentThatDoesNotHashToItsMd5IsRefused() throws Exception {
    String a = remote.file("a");
    String b = remote.file("b");
    remote.corrupt(b, "c");
    DvcHash hash = remote.listing("[" + entry(a, "a") + ", " + entry(b, "b") + "]");
    assertRefused(new DvcFile(hash, 2, 2, "data"), "files/md5/" + b.substring(0, 2) + "/" + b.substring(2)
        + " is corrupt: its bytes hash to md5 " + md5("c".getBytes(StandardCharsets.UTF_8)) + ", not " + b);

    DvcHash forged = new DvcHash("0123456789abcdef0123456789abcdef", true);
    dvc.put(forged.key(""), ("[" + entry(a, "a") + "]").getBytes(StandardCharsets.UTF_8));
    assertRefused(new DvcFile(forged, 1, 1, "data"), ".dir is corrupt: its bytes hash to md5 ");
  }

  @Test
  void aFileLargerThanTheWholeFolderIsDeclaredIsCutOff() throws Exception {
    String big = remote.file("x".repeat(10_000));
    assertRefused(new DvcFile(remote.listing("[" + entry(big, "big") + "]"), 100, 1, "data"),
        "is larger than 100 bytes, the size of the whole folder its .dvc file declares");
  }

  @Test
  void filesThatTogetherHoldMoreThanTheFolderIsDeclaredAreCutOffWhileTheyAreRead() throws Exception {
    List<String> entries = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      entries.add(entry(remote.file(i + "x".repeat(80)), "f" + i));
    }
    assertRefused(new DvcFile(remote.listing("[" + String.join(", ", entries) + "]"), 100, 20, "data"),
        "the files it lists hold more than the 100 bytes its .dvc file declares");
  }

  @Test
  void aSecondImportOfTheSameContentReusesEveryBlob() throws Exception {
    String a = remote.file("alpha");
    String b = remote.file("beta");
    String empty = remote.file("");
    DvcHash hash = remote.listing("[" + entry(a, "x/a") + ", " + entry(b, "b") + ", " + entry(a, "y/a-again") + ", "
        + entry(empty, "empty") + "]");

    DvcImport.Result first = importAs(new DvcFile(hash, 14, 4, "data"), "v1");
    DvcImport.Result second = importAs(new DvcFile(hash, 14, -1, null), "v2");

    assertThat(first.files()).isEqualTo(4);
    assertThat(first.bytes()).isEqualTo(14);
    assertThat(first.copiedBlobs()).isEqualTo(2);
    assertThat(second.copiedBlobs()).isZero();
    assertThat(second.reusedBlobs()).isEqualTo(2);
    assertThat(second.version()).isEqualTo(first.version());
    assertThat(cas.refLog().read("v2", 10)).hasSize(1);
    assertRefused(new DvcFile(hash, 15, 4, "data"), "its .dvc file declares 15 bytes, but the files it lists hold 14");
  }
}
