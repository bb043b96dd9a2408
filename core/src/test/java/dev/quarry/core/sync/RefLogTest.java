package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.store.FileStore;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Ref;
import dev.quarry.core.sync.cas.RefLogEntry;
import dev.quarry.core.sync.gc.GarbageCollector;
import dev.quarry.core.sync.push.Push;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.core.sync.remote.RefLog;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every ref update is logged, the log reads newest first and is checked as untrusted input, and gc keeps it. */
class RefLogTest {
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
  void everyPushAppendsWhoWhenAndBothRootsNewestFirst() throws Exception {
    Digest first = push(folder("a", "one"), "latest", "alice@laptop");
    Digest second = push(folder("b", "two"), "latest", "datasetsync/ml/coco");

    List<RefLog.Record> log = remote.refLog().read("latest", 10);

    assertThat(log).hasSize(2);
    RefLogEntry newest = log.get(0).entry();
    assertThat(newest.rootDigest()).isEqualTo(second);
    assertThat(newest.previousDigest()).contains(first);
    assertThat(newest.by()).isEqualTo("datasetsync/ml/coco");
    assertThat(newest.command()).isEqualTo("sync push " + temp.resolve("b") + " --ref latest");
    assertThat(log.get(1).entry().previousDigest()).isEmpty();
    assertThat(log.get(1).entry().by()).isEqualTo("alice@laptop");
    assertThat(remote.refLog().read("latest", 1)).extracting(RefLog.Record::entry).containsExactly(newest);
    assertThat(remote.refLog().read("other", 10)).isEmpty();
  }

  /** A folder name may hold a newline; the entry stays readable. A bad author is refused before anything is written. */
  @Test
  void whatAPushWritesIsAlwaysReadable() throws Exception {
    Path odd = folder("line\nbreak", "one");
    push(odd, "latest", "alice@laptop");
    assertThat(remote.refLog().read("latest", 1).get(0).entry().command())
        .isEqualTo("sync push " + temp + "/line?break --ref latest");

    try (SyncSession session = new SyncSession(odd, null, remote, QUIET)) {
      assertThatThrownBy(() -> Push.run(session, "latest", new Push.Options(false, "eve\u001b[2J")))
          .hasMessage("Invalid author for the ref log: eve?[2J (must be 1 to 1024 printable characters)");
    }
    assertThat(remote.refLog().read("latest", 10)).hasSize(1);
  }

  @Test
  void writersInTheSameMillisecondNeverOverwriteEachOther() throws Exception {
    Instant now = Instant.now();
    Ref ref = Ref.of(Digest.EMPTY, 0, 0, now.toString());
    for (int i = 0; i < 3; i++) {
      remote.refLog().append(RefLogEntry.of("latest", now, "writer " + i, "test", null, ref));
    }
    assertThat(remote.refLog().read("latest", 10)).hasSize(3);
  }

  @Test
  void gcKeepsAVersionTheLogNamesUntilItsEntryOutlivesTheRetention() throws Exception {
    Digest old = push(folder("a", "one"), "latest", "alice@laptop");
    push(folder("b", "two"), "latest", "alice@laptop");
    Thread.sleep(5);

    gc(Duration.ofDays(30));
    assertThat(store.head(remote.layout().treeKey(old))).as("the pushed-over version, named by the log").isPresent();
    assertThat(Files.readString(pull(old).resolve("file"))).isEqualTo("one");

    gc(Duration.ZERO);
    assertThat(store.head(remote.layout().treeKey(old))).as("past the retention").isEmpty();
    RemoteInvariant.assertHolds(remote);
  }

  @Test
  void aHostileEntryIsRefusedWithOneLineAndGcDeletesNothing() throws Exception {
    push(folder("a", "one"), "latest", "alice@laptop");
    store.delete("cas/refs/latest");
    String key = "cas/refs-log/latest/0000000000000000001-evil.json";
    store.put(key, ("{\"format\":\"quarry-ref-log/1\",\"ref\":\"latest\",\"at\":\"2026-01-01T00:00:00Z\","
        + "\"by\":\"\\u001b[2Jmallory\",\"command\":\"x\",\"root\":\"" + "ab".repeat(32) + "\",\"rootSize\":1,"
        + "\"files\":1,\"bytes\":1}").getBytes(StandardCharsets.UTF_8));
    long before = store.listAll("cas/").count();

    assertThatThrownBy(() -> gc(Duration.ofDays(30))).hasMessage("Invalid ref log entry " + store.url(key)
        + ": a missing, long or unprintable by (must be quarry-ref-log/1 JSON as docs/formats.md describes; delete"
        + " it if Quarry did not write it)");
    assertThat(store.listAll("cas/").count()).isEqualTo(before);

    store.put(key, new byte[RefLogEntry.MAX_BYTES + 1]);
    assertThatThrownBy(() -> remote.refLog().read("latest", 10))
        .hasMessageStartingWith("Invalid ref log entry " + store.url(key) + ": larger than 8192 bytes");
    store.put(key, "{\"format\":\"quarry-ref-log/1\",\"ref\":\"other\"}".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> remote.refLog().read("latest", 10))
        .hasMessageStartingWith("Invalid ref log entry " + store.url(key) + ": it names ref other (must be latest)");
  }

  private Path folder(String name, String content) throws IOException {
    Path folder = temp.resolve(name);
    Files.createDirectories(folder);
    Files.writeString(folder.resolve("file"), content);
    return folder;
  }

  private Digest push(Path folder, String ref, String by) throws IOException {
    try (SyncSession session = new SyncSession(folder, null, remote, QUIET)) {
      Push.run(session, ref, new Push.Options(false, by));
    }
    return remote.readRef(ref).orElseThrow().rootDigest();
  }

  private Path pull(Digest version) throws IOException {
    Path target = temp.resolve("pulled-" + version.hex());
    try (SyncSession session = new SyncSession(target, null, remote, QUIET)) {
      dev.quarry.core.sync.pull.Pull.run(session, new dev.quarry.core.sync.pull.Pull.Options(version.text(), List.of(),
          false, null));
    }
    return target;
  }

  private void gc(Duration retention) throws IOException {
    Path state = temp.resolve("gc-state");
    try (SyncSession session = new SyncSession(state, state, remote, QUIET)) {
      GarbageCollector.run(session, new GarbageCollector.Options(false, Duration.ZERO, retention));
    }
  }
}
