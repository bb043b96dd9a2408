package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.RequestTotals;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.store.S3Store;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.gc.GarbageCollector;
import dev.quarry.core.sync.pull.Get;
import dev.quarry.core.sync.pull.Pull;
import dev.quarry.core.sync.push.Push;
import dev.quarry.core.sync.push.PushFailedException;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.core.sync.remote.TreeDiff;
import dev.quarry.core.sync.remote.VersionListing;
import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Status, push, pull and gc against a real MinIO. */
@ExtendWith(MinioExtension.class)
class SyncIT {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  private final MinioServer minio;
  @TempDir Path temp;
  private ObjectStore store;
  private CasRemote remote;

  SyncIT(MinioServer minio) {
    this.minio = minio;
  }

  @BeforeEach
  void openRemote() {
    store = S3Store.open(minio.createBucket("sync"), S3Settings.defaults().withEndpoint(minio.endpoint())
        .withCredentials(minio.accessKey(), minio.secretKey()).withPartSizeBytes(S3Settings.MIN_PART_SIZE_BYTES));
    remote = new CasRemote(store, "cas/dataset", 32);
  }

  @AfterEach
  void closeRemote() throws IOException {
    store.close();
  }

  private SyncSession session(Path folder) {
    return new SyncSession(folder, null, remote, QUIET);
  }

  private SyncResult push(Path folder, String ref) throws IOException {
    try (SyncSession session = session(folder)) {
      return Push.run(session, ref, Push.Options.defaults());
    }
  }

  private SyncResult status(Path folder, String ref) throws IOException {
    try (SyncSession session = session(folder)) {
      return StatusCheck.run(session, ref);
    }
  }

  private SyncResult pull(Path folder, String version, List<String> include, boolean deleteExtra, Path cache)
      throws IOException {
    try (SyncSession session = session(folder)) {
      return Pull.run(session, new Pull.Options(version, include, deleteExtra, cache));
    }
  }

  private SyncResult gc(boolean dryRun, Duration grace) throws IOException {
    try (SyncSession session = new SyncSession(temp.resolve("gc-state"), temp.resolve("gc-state"), remote, QUIET)) {
      return GarbageCollector.run(session, new GarbageCollector.Options(dryRun, grace, Duration.ZERO));
    }
  }

  /** Empty folders and files, unicode names, links of every kind, modes, and a large sparse file. */
  private Path edgeCaseTree() throws IOException {
    Path data = temp.resolve("data");
    Files.createDirectories(data.resolve("empty/nested/deeper"));
    Files.createDirectories(data.resolve("images/train"));
    for (int i = 0; i < 150; i++) {
      Files.writeString(data.resolve("images/train/" + i + ".txt"), "record " + i % 100); // duplicates on purpose
    }
    Files.createFile(data.resolve("zero-bytes"));
    Files.createFile(data.resolve("images/also-empty"));
    Files.writeString(data.resolve("caf\u00e9 \u65e5\u672c \uD83D\uDE00.txt"), "unicode");
    Files.writeString(data.resolve("spaces and\nnewline"), "odd name");
    Path tool = Files.writeString(data.resolve("run.sh"), "#!/bin/sh\necho hi\n");
    Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-x---"));
    Path readOnly = Files.writeString(data.resolve("read-only"), "do not touch");
    Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r--r--r--"));
    Files.createSymbolicLink(data.resolve("relative-link"), Path.of("images/train/1.txt"));
    Files.createSymbolicLink(data.resolve("absolute-link"), Path.of("/etc/hostname"));
    Files.createSymbolicLink(data.resolve("dangling-link"), Path.of("no/such/file"));
    try (RandomAccessFile sparse = new RandomAccessFile(data.resolve("sparse.bin").toFile(), "rw")) {
      sparse.setLength(40L << 20); // multipart upload, and a hole
      sparse.seek(33L << 20);
      sparse.write("end of the hole".getBytes(StandardCharsets.UTF_8));
    }
    return data;
  }

  @Test
  void diffLsAndGetReadOnlyThePathsTheyTouchOnMinio() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data/a/b"));
    Files.writeString(data.resolve("deep.txt"), "deep");
    for (int i = 0; i < 20; i++) {
      Files.createDirectories(temp.resolve("data/wide-" + i));
      Files.writeString(temp.resolve("data/wide-" + i + "/f"), "f" + i);
    }
    push(temp.resolve("data"), "v1");
    Files.writeString(data.resolve("deep.txt"), "deeper");
    push(temp.resolve("data"), "v2");

    var before = store.requests().snapshot();
    var listing = VersionListing.list(remote, remote.resolveRoot("v2"), "v2", "a/b", false);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Get.toStream(remote, Get.find(remote, "v1", "a/b/deep.txt"), out);
    var diff = TreeDiff.compare(TreeDiff.Trees.of(remote), remote.resolveRoot("v1"), TreeDiff.Trees.of(remote),
        remote.resolveRoot("v2"));
    var requests = store.requests().snapshot().minus(before);

    assertThat(listing.items()).extracting(item -> item.path() + " " + item.size()).containsExactly("a/b/deep.txt 6");
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("deep");
    assertThat(diff.changes()).extracting(change -> change.kind() + " " + change.path())
        .containsExactly("MODIFIED a/b/deep.txt");
    // ls: ref, root, a, a/b; get: ref, root, a, a/b, blob; diff: 2 refs, 2 roots, a and a/b on each side
    assertThat(requests.get()).isEqualTo(4 + 5 + 8);
    assertThat(requests.total()).isEqualTo(requests.get());
  }

  @Test
  void aTreeOfEdgeCasesSurvivesARoundTripAndAnUnchangedPullMovesNothing() throws Exception {
    Path data = edgeCaseTree();
    SyncResult pushed = push(data, "latest");
    assertThat(pushed.files()).isEqualTo(160);
    assertThat(pushed.transferred().objects()).isEqualTo(pushed.missingRemote().objects());
    RemoteInvariant.assertHolds(remote);

    Path copy = temp.resolve("copy");
    Path cache = temp.resolve("copy/.quarry/blobs");
    SyncResult pulled = pull(copy, "latest", List.of(), false, cache);
    assertThat(TreeSnapshot.of(copy)).isEqualTo(TreeSnapshot.of(data));
    assertThat(pulled.version()).isEqualTo(pushed.version());
    assertThat(pulled.transferred().objects()).as("100 distinct small contents, the unicode, sparse, tool, ...")
        .isEqualTo(pushed.missingRemote().objects() - 6 /* manifests */);
    assertThat(Files.getAttribute(copy.resolve("images/train/1.txt"), "unix:nlink"))
        .as("writable (0644): a copy, never a link to the cache").isEqualTo(1);

    SyncResult again = pull(copy, "latest", List.of(), false, cache);
    assertThat(again.transferred().objects()).isZero();
    assertThat(again.requests().get()).as("the ref and the six manifests").isEqualTo(7);
    SyncResult fromCopy = status(copy, "latest");
    assertThat(fromCopy.version()).isEqualTo(pushed.version());
    assertThat(fromCopy.missingRemote().objects()).isZero();
    assertThat(fromCopy.hashedFiles()).as("the pull recorded what it wrote").isZero();

    Path plain = temp.resolve("plain");
    pull(plain, pushed.version(), List.of(), false, null);
    assertThat(TreeSnapshot.of(plain)).isEqualTo(TreeSnapshot.of(data));
  }

  @Test
  void statusAfterOneChangeCostsAHandfulOfRequestsOnABusyRemote() throws Exception {
    Random random = new Random(5);
    for (int i = 0; i < 3000; i++) {
      byte[] unrelated = new byte[8];
      random.nextBytes(unrelated);
      store.put(remote.layout().blobKey(Digest.of(unrelated)), unrelated);
    }
    Path data = temp.resolve("data");
    for (int i = 0; i < 1000; i++) {
      Path file = data.resolve("part-" + i % 10 + "/group-" + i % 7 + "/" + i + ".bin");
      Files.createDirectories(file.getParent());
      Files.writeString(file, "content " + i);
    }
    push(data, "latest");
    SyncResult clean = status(data, "latest");
    assertThat(clean.missingRemote().objects()).isZero();
    assertThat(clean.requests().total()).as("the gc generation, the ref and its version's top object (read while"
        + " the folder is scanned, so that a change costs no round trip more)").isEqualTo(3);

    Files.writeString(data.resolve("part-3/group-2/23.bin"), "changed");
    SyncResult changed = status(data, "latest");
    assertThat(changed.hashedFiles()).isEqualTo(1);
    assertThat(changed.missingRemote().objects()).as("the blob and the three manifests on its path").isEqualTo(4);
    assertThat(changed.missingLocal()).isEqualTo(new Amount(1, "content 23".length()));
    RequestTotals requests = changed.requests();
    assertThat(requests.total()).as(requests.toString()).isLessThanOrEqualTo(10);
    assertThat(requests.put() + requests.delete()).isZero();
  }

  /**
   * A flat folder of 10,000 files is stored as chunks under an index: one change uploads one chunk and the index, and
   * status reads the index and that chunk, with the requests counted (docs/formats.md, "Chunked folders").
   */
  @Test
  void aChangeInAChunkedFlatFolderCostsOneChunkAndTheIndex() throws Exception {
    Path data = Files.createDirectories(temp.resolve("flat"));
    for (int i = 0; i < 10_000; i++) {
      Files.writeString(data.resolve(String.format("img-%05d.jpg", i)), i % 100 == 0 ? "file " + i : "");
    }
    SyncResult first = push(data, "latest");
    long whole = first.transferred().bytes();
    Files.writeString(data.resolve("img-05000.jpg"), "changed");

    SyncResult changed = status(data, "latest");
    assertThat(changed.changes().modified().paths()).containsExactly("img-05000.jpg");
    assertThat(changed.missingRemote().objects()).as("the blob, the chunk and the index").isEqualTo(3);
    RequestTotals requests = changed.requests();
    assertThat(requests.get()).as("the ref, the gc generation, the index, the chunk: " + requests).isEqualTo(4);
    assertThat(requests.total()).as(requests.toString()).isLessThanOrEqualTo(8);

    SyncResult pushed = push(data, "latest");
    assertThat(pushed.transferred().bytes()).as("bytes one change uploads, of %d for the whole folder", whole)
        .isLessThan(whole / 4);
    Path pulled = temp.resolve("pulled");
    try (SyncSession session = session(pulled)) {
      Pull.run(session, new Pull.Options("latest", List.of("img-05000.jpg"), false, null));
    }
    assertThat(Files.readString(pulled.resolve("img-05000.jpg"))).isEqualTo("changed");
    SyncResult wildcard;
    try (SyncSession session = session(temp.resolve("wildcard"))) {
      wildcard = Pull.run(session, new Pull.Options("latest", List.of("img-050*"), false, null));
    }
    assertThat(wildcard.files()).isEqualTo(100);
    assertThat(temp.resolve("wildcard/img-05100.jpg")).doesNotExist();
    assertThat(wildcard.requests().get()).as("the ref, the index, the chunks that can hold img-050, two blobs: "
        + wildcard.requests()).isLessThanOrEqualTo(6);
    var listing = VersionListing.list(remote, remote.resolveRoot("latest"), "latest", "img-09999.jpg", false);
    assertThat(listing.manifestsRead()).as("the chunk that holds the name").isEqualTo(1);
  }

  @Test
  void aPartialPullReadsOnlyTheManifestsAndBlobsItSelects() throws Exception {
    Path data = temp.resolve("data");
    for (String split : List.of("train", "val")) {
      for (int c = 0; c < 4; c++) {
        for (int i = 0; i < 25; i++) {
          Path file = data.resolve(split + "/class" + c + "/" + i + ".jpg");
          Files.createDirectories(file.getParent());
          Files.writeString(file, split + c + "/" + i);
        }
      }
    }
    Files.writeString(data.resolve("labels.json"), "{}");
    push(data, "latest");

    Path partial = temp.resolve("partial");
    SyncResult pulled = pull(partial, "latest", List.of("val/class1/**", "labels.json"), false, null);
    assertThat(TreeSnapshot.of(partial).keySet()).hasSize(2 + 1 + 25).contains("labels.json", "val/class1/7.jpg")
        .noneMatch(path -> path.startsWith("train"));
    assertThat(pulled.requests().get()).as("ref, root, val, val/class1, and 26 blobs").isEqualTo(4 + 26);
  }

  @Test
  void aCorruptRemoteBlobIsCaughtAndNothingCorruptIsWritten() throws Exception {
    Path data = temp.resolve("data");
    Files.createDirectories(data);
    Files.writeString(data.resolve("good.txt"), "good");
    Files.writeString(data.resolve("victim.txt"), "original");
    push(data, "latest");
    Digest victim = Digest.of("original".getBytes(StandardCharsets.UTF_8));
    store.put(remote.layout().blobKey(victim), "tampered".getBytes(StandardCharsets.UTF_8)); // same size

    Path copy = temp.resolve("copy");
    assertThatThrownBy(() -> pull(copy, "latest", List.of(), false, null))
        .hasMessageStartingWith("Cannot pull latest: 1 files failed (first: victim.txt: ")
        .hasMessageContaining("is corrupt: its bytes hash to")
        .hasMessageContaining("nothing corrupt was written");
    assertThat(copy.resolve("victim.txt")).doesNotExist();
    assertThat(copy.resolve("good.txt")).hasContent("good");
    try (Stream<Path> leftovers = Files.walk(copy)) {
      assertThat(leftovers.filter(Files::isRegularFile).map(Path::toString))
          .noneMatch(name -> name.endsWith(".part") || name.contains(".quarry-part"));
    }
  }

  @Test
  void namesOf255BytesPushAndPull() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data/" + "\u00e9".repeat(127) + "d"));
    Files.writeString(data.resolve("n".repeat(251) + ".txt"), "long");
    push(temp.resolve("data"), "latest");
    pull(temp.resolve("copy"), "latest", List.of(), false, temp.resolve("cache"));
    pull(temp.resolve("plain"), "latest", List.of(), false, null);
    assertThat(TreeSnapshot.of(temp.resolve("copy"))).isEqualTo(TreeSnapshot.of(temp.resolve("data")));
    assertThat(TreeSnapshot.of(temp.resolve("plain"))).isEqualTo(TreeSnapshot.of(temp.resolve("data")));
  }

  @Test
  void deleteExtraRemovesOnlyWhatTheVersionLacksWithinTheIncludedPaths() throws Exception {
    Path data = temp.resolve("data");
    Files.createDirectories(data.resolve("a"));
    Files.writeString(data.resolve("a/keep.txt"), "keep");
    push(data, "latest");
    Path copy = Files.createDirectories(temp.resolve("copy/a"));
    Files.writeString(copy.resolve("extra.txt"), "extra");
    Files.createDirectories(temp.resolve("copy/b"));
    Files.writeString(temp.resolve("copy/b/outside.txt"), "outside");

    pull(temp.resolve("copy"), "latest", List.of("a/**"), false, null);
    assertThat(copy.resolve("extra.txt")).exists();
    assertThatThrownBy(() -> pull(temp.resolve("copy"), "latest", List.of("a/**"), true, null))
        .hasMessageContaining("--delete-extra would delete 1 local files").hasMessageContaining(": a/extra.txt");
    try (SyncSession session = session(temp.resolve("copy"))) {
      Pull.run(session, new Pull.Options("latest", List.of("a/**"), true, null, true)); // made by hand: forced
    }
    assertThat(copy.resolve("extra.txt")).doesNotExist();
    assertThat(copy.resolve("keep.txt")).hasContent("keep");
    assertThat(temp.resolve("copy/b/outside.txt")).as("not within the included paths").exists();
  }

  @Test
  void aFailedPushLeavesOnlyCompleteSubtreesAndTheNextPushResumes() throws Exception {
    Path data = temp.resolve("data");
    for (int i = 0; i < 60; i++) {
      Path file = data.resolve("d" + i % 3 + "/e" + i % 2 + "/" + i);
      Files.createDirectories(file.getParent());
      Files.writeString(file, "file " + i);
    }
    Digest doomed = Digest.of("file 7".getBytes(StandardCharsets.UTF_8));
    AtomicInteger refused = new AtomicInteger();
    DelegatingStore failing = new DelegatingStore(store) {
      @Override
      public void before(String kind, String key) throws IOException {
        if (kind.equals("PUT") && key.endsWith(doomed.hex())) {
          refused.incrementAndGet();
          throw new IOException("injected: the network ate it");
        }
      }
    };
    CasRemote flaky = new CasRemote(failing, "cas/dataset", 8);
    try (SyncSession session = new SyncSession(data, null, flaky, QUIET)) {
      assertThatThrownBy(() -> Push.run(session, "latest", Push.Options.defaults()))
          .isInstanceOf(PushFailedException.class)
          .hasMessageStartingWith("Cannot push: 1 objects failed after retries, so the ref was not moved");
    }
    assertThat(refused).hasValue(3);
    assertThat(remote.readRef("latest")).isEmpty();
    RemoteInvariant.assertHolds(remote);
    long treesLeft = store.listAll("cas/dataset/trees/").count();
    assertThat(treesLeft).as("all but the root, d1 and d1/e1 (file 7's path)").isEqualTo(1 + 3 + 3 * 2 - 3);

    SyncResult resumed = push(data, "latest");
    assertThat(resumed.transferred().objects()).as("the blob and the three manifests").isEqualTo(4);
    RemoteInvariant.assertHolds(remote);
    assertThat(store.listAll("cas/dataset/leases/").count()).as("leases are released").isZero();
  }

  /** Issue 18, finding 2, on MinIO: the held interleaving of a push that passed the fence and a gc marking. */
  @Test
  void aPushThatPassedTheFenceAndEndsWhileGcMarksKeepsItsObjects() throws Exception {
    HeldInterleaving.assertPushSurvives(store, temp);
  }

  /** Issue 18, finding 9, on MinIO: the log names every push, and gc keeps the pushed-over version. */
  @Test
  void theRefLogNamesEveryPushAndGcKeepsWhatItNamesForTheRetention() throws Exception {
    Path data = Files.createDirectories(temp.resolve("logged"));
    Files.writeString(data.resolve("file"), "one");
    push(data, "latest");
    Digest first = remote.readRef("latest").orElseThrow().rootDigest();
    Files.writeString(data.resolve("file"), "two");
    push(data, "latest");
    Thread.sleep(1100);

    var log = remote.refLog().read("latest", 10);
    assertThat(log).hasSize(2);
    assertThat(log.get(0).entry().previousDigest()).contains(first);
    try (SyncSession session = new SyncSession(temp.resolve("gc-state"), temp.resolve("gc-state"), remote, QUIET)) {
      GarbageCollector.run(session, new GarbageCollector.Options(false, Duration.ZERO, Duration.ofDays(30)));
    }
    Path back = temp.resolve("back");
    pull(back, first.text(), List.of(), false, null);
    assertThat(back.resolve("file")).hasContent("one");
    gc(false, Duration.ZERO);
    assertThat(store.head(remote.layout().treeKey(first))).as("past a zero retention").isEmpty();
  }

  /** Issue 18, finding 8, on MinIO: a mistyped folder moves no ref and is not created. */
  @Test
  void aMissingFolderIsRefusedAndTheRefStays() throws Exception {
    Path data = Files.createDirectories(temp.resolve("real"));
    Files.writeString(data.resolve("file"), "content");
    push(data, "latest");
    Path typo = temp.resolve("reall");
    assertThatThrownBy(() -> push(typo, "latest")).hasMessage("Cannot push " + typo + ": no such folder");
    assertThat(typo).doesNotExist();
    assertThat(remote.refLog().read("latest", 10)).hasSize(1);
  }

  @Test
  void gcDeletesOnlyWhatNoRefReachesAndOnlyWhenTold() throws Exception {
    Path data = temp.resolve("data");
    Files.createDirectories(data.resolve("shared"));
    Files.writeString(data.resolve("shared/a"), "shared a");
    Files.writeString(data.resolve("old-only"), "old only");
    push(data, "v1");
    Files.delete(data.resolve("old-only"));
    Files.writeString(data.resolve("new-only"), "new only");
    push(data, "v2");
    store.delete(remote.layout().refKey("v1"));

    SyncResult young = gc(false, Duration.ofHours(1));
    assertThat(young.unreachable().objects()).isZero();
    assertThat(young.retained().objects()).as("v1's root, younger than an hour, which keeps its blob too")
        .isEqualTo(1);
    SyncResult dry = gc(true, Duration.ZERO);
    assertThat(dry.unreachable()).isEqualTo(new Amount(2, dry.unreachable().bytes()));
    assertThat(dry.transferred().objects()).isZero();
    assertThat(store.head(remote.layout().blobKey(Digest.of("old only".getBytes()))).isPresent()).isTrue();

    String generation = remote.gcGeneration();
    SyncResult swept = gc(false, Duration.ZERO);
    assertThat(swept.transferred().objects()).isEqualTo(2);
    assertThat(store.head(remote.layout().blobKey(Digest.of("old only".getBytes()))).isPresent()).isFalse();
    assertThat(remote.gcGeneration()).isNotEqualTo(generation);
    RemoteInvariant.assertHolds(remote);
    assertThat(store.listAll("cas/dataset/gc/running/").count()).isZero();

    Path copy = temp.resolve("copy");
    pull(copy, "v2", List.of(), false, null);
    assertThat(TreeSnapshot.of(copy)).isEqualTo(TreeSnapshot.of(data));
  }
}
