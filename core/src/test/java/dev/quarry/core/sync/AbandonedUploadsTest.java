package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.ObjectUpload;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Marker;
import dev.quarry.core.sync.gc.GarbageCollector;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What killed writers leave behind, and the later command that removes it. */
class AbandonedUploadsTest {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  @TempDir Path temp;

  @Test
  void gcRemovesTheTempFileOfAKilledPushOnceItIsAbandoned() throws Exception {
    Path root = temp.resolve("remote");
    Digest digest = Digest.of("a large file".getBytes(StandardCharsets.UTF_8));
    try (FileStore killed = new FileStore(root)) {
      CasRemote remote = new CasRemote(killed, "cas", 4);
      ObjectUpload upload = killed.upload(remote.layout().blobKey(digest)); // never committed nor closed: kill -9
      upload.stream().write(new byte[4096]);
      upload.stream().flush();
    }
    List<Path> temps = temps(root);
    assertThat(temps).hasSize(1);
    Files.setLastModifiedTime(temps.get(0), FileTime.from(Instant.now().minus(FileStore.ABANDONED_AFTER)
        .minusSeconds(60)));

    try (FileStore store = new FileStore(root)) {
      Path state = temp.resolve("gc");
      try (SyncSession session = new SyncSession(state, state, new CasRemote(store, "cas", 4), QUIET)) {
        GarbageCollector.run(session, new GarbageCollector.Options(false, Duration.ofHours(1), Duration.ZERO));
      }
    }
    assertThat(temps(root)).isEmpty();
  }

  /** Uploads no listing shows (S3 multipart uploads a killed push started) go with a deleting gc, a day old at least. */
  @Test
  void aDeletingGcRemovesTheUploadsNoWriterFinishedUnderItsPrefix() throws Exception {
    List<String> removals = new ArrayList<>();
    try (FileStore files = new FileStore(temp.resolve("remote"))) {
      DelegatingStore store = new DelegatingStore(files) {
        @Override
        public int removeAbandonedUploads(String prefix, Duration olderThan) throws IOException {
          removals.add(prefix + " " + olderThan);
          return super.removeAbandonedUploads(prefix, olderThan);
        }
      };
      CasRemote remote = new CasRemote(store, "cas", 4);
      Path state = temp.resolve("gc");
      try (SyncSession session = new SyncSession(state, state, remote, QUIET)) {
        GarbageCollector.run(session, new GarbageCollector.Options(true, Duration.ofHours(1), Duration.ZERO));
        assertThat(removals).as("a dry run removes nothing").isEmpty();
        GarbageCollector.run(session, new GarbageCollector.Options(false, Duration.ofHours(1), Duration.ZERO));
        GarbageCollector.run(session, new GarbageCollector.Options(false, Duration.ofHours(48), Duration.ZERO));
      }
      assertThat(removals).as("a live upload of one large blob may take hours: never younger than a day")
          .containsExactly(remote.layout().prefix() + " PT24H", remote.layout().prefix() + " PT48H");
    }
  }

  /**
   * A gc killed mid-run leaves its marker, which expires (pushes stop waiting for it) but stayed forever; the next
   * deleting gc removes expired markers, and only Quarry's own.
   */
  @Test
  void theNextGcRemovesTheExpiredMarkerOfAKilledGc() throws Exception {
    try (FileStore store = new FileStore(temp.resolve("remote"))) {
      String killed = "cas/gc/running/killed.json";
      store.put(killed, new Marker(Marker.GC, "killed", null, "2026-01-01T00:00:00Z", "2026-01-01T00:10:00Z")
          .toJson());
      String foreign = "cas/gc/running/notes.txt";
      store.put(foreign, "not a marker".getBytes(StandardCharsets.UTF_8));
      Path state = temp.resolve("gc");
      try (SyncSession session = new SyncSession(state, state, new CasRemote(store, "cas", 4), QUIET)) {
        GarbageCollector.run(session, new GarbageCollector.Options(true, Duration.ZERO, Duration.ZERO));
        assertThat(store.head(killed)).as("a dry run deletes nothing").isPresent();
        GarbageCollector.run(session, new GarbageCollector.Options(false, Duration.ZERO, Duration.ZERO));
      }
      assertThat(store.head(killed)).isEmpty();
      assertThat(store.head(foreign)).isPresent();
      assertThat(store.listAll("cas/gc/running/").map(object -> object.key()).toList()).containsExactly(foreign);
    }
  }

  private static List<Path> temps(Path root) throws Exception {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(p -> p.getFileName().toString().startsWith(FileStore.UPLOAD_PREFIX)).toList();
    }
  }
}
