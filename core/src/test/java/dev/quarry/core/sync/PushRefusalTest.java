package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.store.FileStore;
import dev.quarry.core.sync.push.Push;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A mistyped folder never moves a ref: status and push never create it, and an empty folder needs asking for. */
class PushRefusalTest {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  @TempDir Path temp;
  private FileStore store;
  private CasRemote remote;

  @BeforeEach
  void openRemote() {
    store = new FileStore(temp.resolve("remote"));
    remote = new CasRemote(store, "cas", 4);
  }

  @AfterEach
  void closeRemote() throws IOException {
    store.close();
  }

  @Test
  void aMissingFolderIsRefusedByPushAndStatusAndNeverCreated() throws Exception {
    Path typo = temp.resolve("data/cocoo");
    try (SyncSession session = new SyncSession(typo, null, remote, QUIET)) {
      assertThatThrownBy(() -> Push.run(session, "latest", Push.Options.defaults()))
          .hasMessage("Cannot push " + typo + ": no such folder");
      assertThatThrownBy(() -> StatusCheck.run(session, "latest"))
          .hasMessage("Cannot compare " + typo + ": no such folder");
    }
    assertThat(temp.resolve("data")).doesNotExist();
    assertThat(remote.readRef("latest")).isEmpty();
    assertThat(store.listAll("cas/").toList()).isEmpty();
  }

  @Test
  void aFileIsNotAFolder() throws Exception {
    Path file = Files.writeString(temp.resolve("file"), "x");
    try (SyncSession session = new SyncSession(file, null, remote, QUIET)) {
      assertThatThrownBy(() -> Push.run(session, "latest", Push.Options.defaults()))
          .hasMessage("Cannot push " + file + ": not a folder");
    }
  }

  @Test
  void anEmptyFolderIsRefusedUnlessAllowedAndTheRefStays() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data"));
    Files.writeString(data.resolve("file"), "content");
    try (SyncSession session = new SyncSession(data, null, remote, QUIET)) {
      Push.run(session, "latest", Push.Options.defaults());
    }
    var before = remote.readRef("latest").orElseThrow();
    Path empty = Files.createDirectories(temp.resolve("empty/only-folders"));
    try (SyncSession session = new SyncSession(empty.getParent(), null, remote, QUIET)) {
      assertThatThrownBy(() -> Push.run(session, "latest", Push.Options.defaults()))
          .hasMessage("Cannot push " + empty.getParent() + ": it holds no files, and the ref would name an empty"
              + " version (pass --allow-empty if that is what you mean)");
      assertThat(remote.readRef("latest")).contains(before);

      Push.run(session, "latest", new Push.Options(true, "test"));
    }
    assertThat(remote.readRef("latest").orElseThrow().files()).isZero();
  }
}
