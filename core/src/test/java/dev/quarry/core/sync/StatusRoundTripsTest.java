package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.FileStore;
import dev.quarry.core.sync.push.Push;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a status after a change waits for once the folder is scanned: at 20 to 50 ms a request on S3, each round
 * trip counts. The folders on the changed path and the changed file are looked up at once, not a level at a time.
 */
class StatusRoundTripsTest {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  @TempDir Path temp;

  @Test
  void aChangeDeepInTheTreeIsLookedUpInOneRoundTrip() throws Exception {
    Path data = temp.resolve("data");
    for (String folder : List.of("a/b/c", "a/b/d", "a/e", "f")) {
      for (int i = 0; i < 3; i++) {
        Files.writeString(Files.createDirectories(data.resolve(folder)).resolve("file-" + i), folder + " " + i);
      }
    }
    // Every lookup waits until all that one round could make are in flight: the root, a, a/b, a/b/c and the file.
    CountDownLatch inFlight = new CountDownLatch(5);
    AtomicBoolean looking = new AtomicBoolean();
    AtomicBoolean waitedInVain = new AtomicBoolean();
    try (FileStore files = new FileStore(temp.resolve("remote"))) {
      CasRemote remote = new CasRemote(DelegatingStore.withHook(files, (kind, key) -> {
        if (looking.get() && kind.equals("HEAD")) {
          inFlight.countDown();
          try {
            if (!inFlight.await(5, TimeUnit.SECONDS)) {
              waitedInVain.set(true);
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
          }
        }
      }), "cas", 8);
      try (SyncSession session = new SyncSession(data, null, remote, QUIET)) {
        Push.run(session, "latest", Push.Options.defaults());
      }
      Files.writeString(data.resolve("a/b/c/file-1"), "changed");
      looking.set(true);
      SyncResult status;
      try (SyncSession session = new SyncSession(data, null, remote, QUIET)) {
        status = StatusCheck.run(session, "latest");
      }
      assertThat(status.missingRemote().objects()).as("the file and the four manifests on its path").isEqualTo(5);
      assertThat(status.requests().head()).isEqualTo(5);
      assertThat(waitedInVain).as("a lookup waited for the others of its round, which never came").isFalse();
    }
  }
}
