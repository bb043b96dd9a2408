package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Ref;
import dev.quarry.core.sync.gc.GarbageCollector;
import dev.quarry.core.sync.pull.Get;
import dev.quarry.core.sync.pull.Pull;
import dev.quarry.core.sync.push.Push;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.core.sync.remote.TreeDiff;
import dev.quarry.core.sync.remote.VersionListing;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flat folder of 20,000 files (docs/formats.md, "Chunked folders"): one change uploads one chunk and the index
 * instead of the folder's whole manifest, status reads the index and the chunk that differs, and pull, ls, get and
 * diff are right across chunk boundaries; a version written as one format-1 manifest still reads.
 */
class FlatFolderTest {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);
  private static final int FILES = 20_000;

  @TempDir Path temp;
  private CountingStore store;
  private CasRemote remote;

  /** Counts the bytes written to and read from the trees key space, and the GETs there. */
  private static final class CountingStore extends DelegatingStore {
    final AtomicLong treeBytesPut = new AtomicLong();
    final AtomicLong treeBytesRead = new AtomicLong();
    final AtomicInteger treeGets = new AtomicInteger();

    CountingStore(ObjectStore delegate) {
      super(delegate);
    }

    void reset() {
      treeBytesPut.set(0);
      treeBytesRead.set(0);
      treeGets.set(0);
    }

    @Override
    public void put(String key, byte[] data) throws IOException {
      if (key.contains("/trees/")) {
        treeBytesPut.addAndGet(data.length);
      }
      super.put(key, data);
    }

    @Override
    public InputStream get(String key) throws IOException {
      InputStream in = super.get(key);
      if (!key.contains("/trees/")) {
        return in;
      }
      treeGets.incrementAndGet();
      return new FilterInputStream(in) {
        @Override
        public int read() throws IOException {
          int b = super.read();
          if (b >= 0) {
            treeBytesRead.incrementAndGet();
          }
          return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
          int read = super.read(buffer, offset, length);
          if (read > 0) {
            treeBytesRead.addAndGet(read);
          }
          return read;
        }
      };
    }
  }

  @BeforeEach
  void openRemote() {
    store = new CountingStore(new FileStore(temp.resolve("remote")));
    remote = new CasRemote(store, "cas", 4);
  }

  @Test
  void oneChangeUploadsAChunkAndTheIndexNotTheWholeFolder() throws Exception {
    Path data = flatFolder(temp.resolve("data"));
    push(data, "latest");
    long whole = store.treeBytesPut.get();
    Files.writeString(data.resolve(name(10_000)), "changed");

    store.reset();
    SyncResult status = status(data, "latest");
    assertThat(status.changes().modified().paths()).containsExactly(name(10_000));
    assertThat(store.treeGets.get()).as("GETs of trees by status").isLessThanOrEqualTo(3);
    assertThat(store.treeBytesRead.get()).as("tree bytes status read").isLessThan(whole / 5);

    store.reset();
    push(data, "latest");
    assertThat(store.treeBytesPut.get()).as("tree bytes one change uploads, of %d for the whole folder", whole)
        .isLessThan(whole / 5);
  }

  @Test
  void pullLsGetAndDiffAreRightAcrossChunkBoundaries() throws Exception {
    Path data = flatFolder(temp.resolve("data"));
    push(data, "v1");
    Files.writeString(data.resolve(name(10_000)), "changed");
    Files.delete(data.resolve(name(500)));
    Files.writeString(data.resolve(name(15_000) + ".extra"), "new");
    Files.writeString(data.resolve("zz-last"), "last");
    push(data, "v2");

    TreeDiff.Result diff = TreeDiff.compare(TreeDiff.Trees.of(remote), remote.resolveRoot("v1"),
        TreeDiff.Trees.of(remote), remote.resolveRoot("v2"));
    assertThat(diff.changes()).extracting(change -> change.kind() + " " + change.path()).containsExactly(
        "DELETED " + name(500), "MODIFIED " + name(10_000), "ADDED " + name(15_000) + ".extra", "ADDED zz-last");

    store.reset();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Get.toStream(remote, Get.find(remote, "v2", name(10_000)), out);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("changed");
    assertThat(store.treeGets.get()).as("GETs of trees by get: the root's index and one chunk").isEqualTo(2);
    assertThat(VersionListing.list(remote, remote.resolveRoot("v2"), "v2", "zz-last", false).items())
        .extracting(VersionListing.Item::path).containsExactly("zz-last");

    Path part = temp.resolve("part");
    store.reset();
    try (SyncSession session = new SyncSession(part, null, remote, QUIET)) {
      Pull.run(session, new Pull.Options("v2", List.of(name(10_000), "zz-last"), false, null));
    }
    assertThat(Files.readString(part.resolve(name(10_000)))).isEqualTo("changed");
    assertThat(Files.readString(part.resolve("zz-last"))).isEqualTo("last");
    assertThat(store.treeGets.get()).as("GETs of trees by a pull of two paths: the index and their chunks")
        .isLessThanOrEqualTo(3);

    Path pulled = temp.resolve("pulled");
    try (SyncSession session = new SyncSession(pulled, null, remote, QUIET)) {
      Pull.run(session, new Pull.Options("v2", List.of(), false, null));
    }
    assertThat(TreeSnapshot.of(pulled)).isEqualTo(TreeSnapshot.of(data));
    try (SyncSession session = new SyncSession(pulled, null, remote, QUIET)) {
      assertThat(Pull.run(session, new Pull.Options("v1", List.of(), true, null)).files()).isEqualTo(FILES);
    }
    assertThat(Files.readString(pulled.resolve(name(500)))).isEmpty();
    assertThat(pulled.resolve("zz-last")).doesNotExist();
  }

  /**
   * A wildcard pattern reads, in a chunked folder, only the chunks that can hold names starting with its literal
   * part (chunks are in name order), also when a wildcard stands above the folder; without a literal part, all.
   */
  @Test
  void aWildcardPullReadsOnlyTheChunksItsLiteralPrefixBounds() throws Exception {
    Path data = flatFolder(temp.resolve("top/data"));
    Files.createDirectories(data.resolve("sub"));
    Files.writeString(data.resolve("sub/a.jpg"), "in sub");
    Files.writeString(data.resolve(name(10_050)), "changed");
    push(temp.resolve("top"), "v1");

    for (String pattern : List.of("data/img-0100*", "*/img-0100*", "data/img-0100[0-9]?.jpg")) {
      Path part = temp.resolve("part-" + pattern.hashCode());
      store.reset();
      SyncResult pulled = pullInto(part, pattern);
      assertThat(pulled.files()).as(pattern).isEqualTo(100);
      assertThat(Files.readString(part.resolve("data/" + name(10_050)))).isEqualTo("changed");
      assertThat(part.resolve("data/" + name(9_999))).doesNotExist();
      assertThat(part.resolve("data/" + name(10_100))).doesNotExist();
      assertThat(store.treeGets.get()).as("GETs of trees by a pull of %s: the root, the folder's index and the"
          + " chunks that can hold img-0100", pattern).isLessThanOrEqualTo(4);
    }

    store.reset();
    SyncResult sub = pullInto(temp.resolve("part-sub"), "data/sub/*.jpg");
    assertThat(sub.files()).isEqualTo(1);
    assertThat(store.treeGets.get()).as("the root, the index, the chunk that holds sub, sub").isLessThanOrEqualTo(4);

    store.reset();
    SyncResult all = pullInto(temp.resolve("part-all"), "data/*.jpg");
    assertThat(all.files()).as("no literal part: every chunk").isEqualTo(FILES);
    assertThat(store.treeGets.get()).as("GETs of trees by a pull of data/*.jpg").isGreaterThan(10);
  }

  private SyncResult pullInto(Path folder, String pattern) throws IOException {
    try (SyncSession session = new SyncSession(folder, null, remote, QUIET)) {
      return Pull.run(session, new Pull.Options("v1", List.of(pattern), false, null));
    }
  }

  @Test
  void aVersionWrittenAsOneFormat1ManifestStillPullsDiffsAndTakesAPush() throws Exception {
    HandMadeRemote hand = new HandMadeRemote(remote);
    Digest content = hand.blob("old");
    List<String> entries = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      entries.add(HandMadeRemote.fileJson(name(i), "0644", i == 7 ? content : Digest.EMPTY));
    }
    Digest root = hand.rawTree(HandMadeRemote.manifestJson(entries.toArray(String[]::new)));
    remote.writeRef("old", Ref.of(root, 5_000, content.size(), Instant.now().toString()), null, "test@host",
        "hand-made");

    Path pulled = temp.resolve("pulled");
    try (SyncSession session = new SyncSession(pulled, null, remote, QUIET)) {
      Pull.run(session, new Pull.Options("old", List.of(), false, null));
    }
    assertThat(Files.readString(pulled.resolve(name(7)))).isEqualTo("old");
    SyncResult same = status(pulled, "old");
    assertThat(same.changes().any()).as("paths that differ").isFalse();
    assertThat(same.missingRemote().objects()).as("the folder's chunks and index, which format 1 never wrote")
        .isPositive();

    Files.writeString(pulled.resolve(name(4_000)), "new");
    assertThat(status(pulled, "old").changes().modified().paths()).containsExactly(name(4_000));
    push(pulled, "new");
    TreeDiff.Result diff = TreeDiff.compare(TreeDiff.Trees.of(remote), remote.resolveRoot("old"),
        TreeDiff.Trees.of(remote), remote.resolveRoot("new"));
    assertThat(diff.changes()).extracting(change -> change.kind() + " " + change.path())
        .containsExactly("MODIFIED " + name(4_000));
    assertThat(VersionListing.list(remote, remote.resolveRoot("old"), "old", name(7), false).items())
        .extracting(VersionListing.Item::size).containsExactly(3L);
  }

  @Test
  void gcKeepsTheChunksOfTheVersionsItKeepsAndDeletesTheOthers() throws Exception {
    Path data = flatFolder(temp.resolve("data"));
    push(data, "latest");
    Files.writeString(data.resolve(name(10_000)), "changed");
    push(data, "latest");
    long before = trees();

    Path state = temp.resolve("gc");
    try (SyncSession session = new SyncSession(state, state, remote, QUIET)) {
      GarbageCollector.run(session, new GarbageCollector.Options(false, Duration.ZERO, Duration.ZERO));
    }
    assertThat(trees()).as("trees left of %d", before).isBetween(before - 3, before - 1);
    RemoteInvariant.assertHolds(remote);
    Path pulled = temp.resolve("pulled");
    try (SyncSession session = new SyncSession(pulled, null, remote, QUIET)) {
      Pull.run(session, new Pull.Options("latest", List.of(), false, null));
    }
    assertThat(TreeSnapshot.of(pulled)).isEqualTo(TreeSnapshot.of(data));
  }

  @Test
  void aChunkIndexThatLiesAboutAChunkIsRefusedByPullAndGetWithNothingWritten() throws Exception {
    HandMadeRemote hand = new HandMadeRemote(remote);
    Digest content = hand.blob("x");
    Digest chunk = hand.rawTree(HandMadeRemote.manifestJson(HandMadeRemote.fileJson("a", "0644", content),
        HandMadeRemote.fileJson("b", "0644", content)));
    Digest index = hand.rawTree("{\"format\":\"quarry-tree-index/1\",\"height\":1,\"chunks\":[{\"first\":\"a\","
        + "\"sha256\":\"" + chunk.hex() + "\",\"size\":" + chunk.size() + ",\"entries\":2,\"files\":2,\"bytes\":5}]}");
    remote.writeRef("lying", Ref.of(index, 2, 5, Instant.now().toString()), null, "test@host", "hand-made");

    Path pulled = temp.resolve("pulled");
    try (SyncSession session = new SyncSession(pulled, null, remote, QUIET)) {
      assertThatThrownBy(() -> Pull.run(session, new Pull.Options("lying", List.of(), false, null)))
          .hasMessage("Invalid chunk index sha256:" + index.hex() + ": chunk 0 (sha256:"
              + chunk.hex() + ") holds 2 entries, 2 files and 2 bytes, but the index declares 2, 2 and 5");
    }
    assertThat(pulled.resolve("a")).doesNotExist();
    assertThatThrownBy(() -> Get.find(remote, "lying", "b"))
        .hasMessageEndingWith("holds 2 entries, 2 files and 2 bytes, but the index declares 2, 2 and 5");
  }

  @Test
  void aChunkIndexWhoseChunksDeclareMoreThanMemoryIsRefusedBeforeTheyAreRead() throws Exception {
    HandMadeRemote hand = new HandMadeRemote(remote);
    List<String> chunks = new ArrayList<>();
    for (int i = 0; i < 4096; i++) {
      chunks.add("{\"first\":\"" + String.format("c%04d", i) + "\",\"sha256\":\"" + Digest.of(new byte[] {(byte) i,
          (byte) (i >> 8)}).hex() + "\",\"size\":268435456,\"entries\":1,\"files\":1,\"bytes\":0}");
    }
    Digest index = hand.rawTree("{\"format\":\"quarry-tree-index/1\",\"height\":1,\"chunks\":["
        + String.join(",", chunks) + "]}");
    Digest empty = hand.tree().digest();

    store.reset();
    assertThatThrownBy(() -> TreeDiff.compare(TreeDiff.Trees.of(remote), remote.fetchObject(empty),
        TreeDiff.Trees.of(remote), remote.fetchObject(index))).hasMessageStartingWith(
            "Cannot compare a chunked folder: the chunks that differ declare 1099511627776 bytes, more than this JVM"
                + " can read at once");
    assertThatThrownBy(() -> remote.fetchManifest(index)).hasMessageStartingWith("Cannot read folder "
        + index.text() + ": its chunks declare 1099511627776 bytes, more than this JVM can read at once");
    assertThat(store.treeGets.get()).as("the empty folder and the index twice, no chunk").isEqualTo(3);
  }

  private long trees() throws IOException {
    return store.listAll(remote.layout().space("trees/")).map(ObjectInfo::key).count();
  }

  /** {@link #FILES} files, empty but for every thousandth (the empty blob is never uploaded). */
  static Path flatFolder(Path folder) throws IOException {
    Files.createDirectories(folder);
    for (int i = 0; i < FILES; i++) {
      Files.writeString(folder.resolve(name(i)), i % 1000 == 0 ? "file " + i : "");
    }
    return folder;
  }

  static String name(int i) {
    return String.format("img-%06d.jpg", i);
  }

  private void push(Path folder, String ref) throws IOException {
    try (SyncSession session = new SyncSession(folder, null, remote, QUIET)) {
      Push.run(session, ref, Push.Options.defaults());
    }
  }

  private SyncResult status(Path folder, String ref) throws IOException {
    try (SyncSession session = new SyncSession(folder, null, remote, QUIET)) {
      return StatusCheck.run(session, ref);
    }
  }
}
