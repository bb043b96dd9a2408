package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.sync.cas.Chunking;
import dev.quarry.core.sync.cas.Marker;
import dev.quarry.core.sync.gc.GarbageCollector;
import dev.quarry.core.sync.pull.Pull;
import dev.quarry.core.sync.push.Push;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gc killed after any number of its deletes leaves a remote where every present manifest still has its whole
 * subtree, and where clients no longer trust their index: pushing the collected version again makes it whole.
 */
class GcKilledTest {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  @TempDir Path temp;

  @Test
  void aGcKilledAfterAnyDeleteLeavesNoManifestWithoutItsSubtree() throws Exception {
    int deletes = collect(temp.resolve("whole"), Integer.MAX_VALUE).deleted();
    assertThat(deletes).as("objects of the first version that gc deletes").isGreaterThan(6);
    for (int k = 0; k < deletes; k++) {
      Path run = temp.resolve("kill-after-" + k);
      Killed result = collect(run, k);
      assertThat(result.failure()).as("gc killed after %d deletes", k).hasMessageContaining("killed");
      try (FileStore files = new FileStore(run.resolve("remote"))) {
        CasRemote remote = new CasRemote(files, "cas", 1);
        assertThat(RemoteInvariant.violations(remote)).as("after a kill at delete %d", k).isEmpty();
        expireMarkers(files);
        push(remote, run.resolve("data"), "latest");
        Path pulled = run.resolve("pulled");
        try (SyncSession session = new SyncSession(pulled, null, remote, QUIET)) {
          Pull.run(session, new Pull.Options("latest", List.of(), false, null, false));
        }
        assertThat(TreeSnapshot.of(pulled)).as("after a kill at delete %d", k)
            .isEqualTo(TreeSnapshot.of(run.resolve("data")));
      }
    }
  }

  /** A chunked folder's index goes before its chunks: a kill between leaves no index without its chunks. */
  @Test
  void aGcKilledAfterAnyDeleteLeavesNoChunkIndexWithoutItsChunks() throws Exception {
    Path data = folder(temp.resolve("data"), "a/one", "two");
    Files.createDirectories(data.resolve("a/flat"));
    for (int i = 0; i < Chunking.MAX_ITEMS + 100; i++) {
      Files.createFile(data.resolve("a/flat/" + i));
    }
    int deletes = collect(temp.resolve("whole"), data, Integer.MAX_VALUE).deleted();
    assertThat(deletes).as("objects gc deletes: the folders, the chunk index, its chunks, a blob").isGreaterThan(5);
    for (int k = 0; k < deletes; k++) {
      Path run = temp.resolve("kill-after-" + k);
      assertThat(collect(run, data, k).failure()).as("gc killed after %d deletes", k).hasMessageContaining("killed");
      try (FileStore files = new FileStore(run.resolve("remote"))) {
        assertThat(RemoteInvariant.violations(new CasRemote(files, "cas", 1))).as("after a kill at delete %d", k)
            .isEmpty();
      }
    }
  }

  /**
   * A push that failed after writing a manifest that reuses an old unreachable subtree leaves that manifest young and
   * unmarked once its lease is gone: gc keeps it for the grace period, and so must keep what it names.
   */
  @Test
  void aManifestGcKeepsForItsAgeKeepsItsSubtree() throws Exception {
    try (FileStore files = new FileStore(temp.resolve("remote"))) {
      CasRemote remote = new CasRemote(files, "cas", 1);
      Path old = folder(temp.resolve("old"), "shared/deep/one", "gone");
      push(remote, old, "latest");
      push(remote, folder(temp.resolve("other"), "seven"), "latest");
      for (ObjectInfo object : files.listAll("cas/").toList()) {
        Files.setLastModifiedTime(temp.resolve("remote").resolve(object.key()),
            java.nio.file.attribute.FileTime.from(Instant.now().minus(Duration.ofHours(2))));
      }
      DelegatingStore noRef = new DelegatingStore(files) {
        @Override
        public void before(String kind, String key) throws IOException {
          if (kind.equals("PUT") && key.startsWith("cas/refs-log/")) {
            throw new IOException("refused");
          }
        }
      };
      Path failed = folder(temp.resolve("failed"), "shared/deep/one", "new");
      assertThatThrownBy(() -> push(new CasRemote(noRef, "cas", 1), failed, "latest")).hasMessageContaining("refused");

      Path state = temp.resolve("gc");
      try (SyncSession session = new SyncSession(state, state, remote, QUIET)) {
        GarbageCollector.run(session, new GarbageCollector.Options(false, Duration.ofHours(1), Duration.ZERO));
      }
      assertThat(RemoteInvariant.violations(remote)).isEmpty();
    }
  }

  private record Killed(int deleted, Exception failure) {}

  /**
   * Pushes a nested version, moves the ref away from it, and runs a gc that keeps nothing of it and dies (every
   * request fails from then on, as for kill -9) when it is about to delete its {@code limit + 1}th object.
   */
  private static Killed collect(Path run, int limit) throws Exception {
    Path data = folder(run.resolve("data"), "a/b/c/one", "a/b/c/two", "a/b/three", "a/d/four", "e/f/five", "six");
    return collect(run, data, limit);
  }

  /** As above, for the version in {@code data}. */
  private static Killed collect(Path run, Path data, int limit) throws Exception {
    try (FileStore files = new FileStore(run.resolve("remote"))) {
      CasRemote plain = new CasRemote(files, "cas", 1);
      push(plain, data, "latest");
      push(plain, folder(run.resolve("other"), "other/seven"), "latest");
      AtomicInteger deleted = new AtomicInteger();
      AtomicBoolean killed = new AtomicBoolean();
      DelegatingStore dying = new DelegatingStore(files) {
        @Override
        public void before(String kind, String key) throws IOException {
          if (!killed.get() && kind.equals("DELETE") && (key.contains("/trees/") || key.contains("/blobs/"))
              && deleted.getAndIncrement() == limit) {
            killed.set(true);
          }
          if (killed.get()) {
            throw new IOException("killed");
          }
        }
      };
      Path state = run.resolve("gc");
      try (SyncSession session = new SyncSession(state, state, new CasRemote(dying, "cas", 1), QUIET)) {
        GarbageCollector.run(session, new GarbageCollector.Options(false, Duration.ZERO, Duration.ZERO));
      } catch (IOException e) {
        return new Killed(limit, e);
      }
      return new Killed(deleted.get(), null);
    }
  }

  /** What time does to a killed gc's marker: it expires, and pushes stop waiting for it. */
  private static void expireMarkers(FileStore files) throws IOException {
    for (ObjectInfo object : files.listAll("cas/gc/running/").toList()) {
      Marker marker = Marker.parse(object.key(), files.getBytes(object.key()));
      files.put(object.key(), marker.expiringAt(Instant.now().minusSeconds(1)).toJson());
    }
  }

  private static Path folder(Path folder, String... files) throws IOException {
    for (String file : files) {
      Path path = folder.resolve(file);
      Files.createDirectories(path.getParent());
      Files.writeString(path, "content of " + file);
    }
    return folder;
  }

  private static void push(CasRemote remote, Path folder, String ref) throws IOException {
    try (SyncSession session = new SyncSession(folder, null, remote, QUIET)) {
      Push.run(session, ref, new Push.Options(false, "kill@test"));
    }
  }
}
