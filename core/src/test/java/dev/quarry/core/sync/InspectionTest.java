package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.RequestCounts;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.cas.TreeObject;
import dev.quarry.core.sync.local.LocalTree;
import dev.quarry.core.sync.pull.Get;
import dev.quarry.core.sync.pull.Pull;
import dev.quarry.core.sync.push.Push;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.core.sync.remote.TreeDiff;
import dev.quarry.core.sync.remote.TreeDiff.Change;
import dev.quarry.core.sync.remote.TreeDiff.Kind;
import dev.quarry.core.sync.remote.VersionListing;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * diff, ls and get: what they report, and that they cost requests on the paths they touch only: the same count for a
 * deep path whatever the width of the tree around it.
 */
class InspectionTest {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  @TempDir Path temp;
  private CasRemote remote;

  @BeforeEach
  void openRemote() {
    remote = new CasRemote(new FileStore(temp.resolve("remote")), "cas", 8);
  }

  @AfterEach
  void closeRemote() throws IOException {
    remote.store().close();
  }

  /** A folder with a file at depth 4 (a/b/c/deep.txt) beside {@code width} folders of {@code width} files. */
  private Path dataset(String name, int width) throws IOException {
    Path folder = temp.resolve(name);
    Files.createDirectories(folder.resolve("a/b/c"));
    Files.writeString(folder.resolve("a/b/c/deep.txt"), "deep");
    Files.writeString(folder.resolve("a/b/sibling.txt"), "sibling");
    for (int i = 0; i < width; i++) {
      Path wide = Files.createDirectories(folder.resolve("wide-" + i));
      for (int j = 0; j < width; j++) {
        Files.writeString(wide.resolve("f" + j), name + " " + i + " " + j);
      }
      Files.writeString(folder.resolve("a/b/c/w" + i), "w" + i);
    }
    return folder;
  }

  private void push(Path folder, String ref) throws IOException {
    try (SyncSession session = new SyncSession(folder, null, remote, QUIET)) {
      Push.run(session, ref, Push.Options.defaults());
    }
  }

  private RequestCounts since(RequestCounts before) {
    return remote.store().requests().snapshot().minus(before);
  }

  @Test
  void lsAndGetOfADeepPathCostTheSameRequestsWhateverTheTreeWidth() throws Exception {
    long[] lsGets = new long[2];
    long[] getGets = new long[2];
    int[] widths = {2, 30};
    for (int w = 0; w < widths.length; w++) {
      String ref = "w" + widths[w];
      push(dataset("data-" + widths[w], widths[w]), ref);

      RequestCounts before = remote.store().requests().snapshot();
      VersionListing.Result listing = VersionListing.list(remote, remote.resolveRoot(ref), ref, "a/b", false);
      RequestCounts ls = since(before);
      assertThat(listing.items()).extracting(VersionListing.Item::path).containsExactly("a/b/c", "a/b/sibling.txt");
      assertThat(listing.items().get(0).files()).isEqualTo(widths[w] + 1);
      lsGets[w] = ls.get();

      before = remote.store().requests().snapshot();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Get.toStream(remote, Get.find(remote, ref, "/a/b/c/deep.txt"), out);
      RequestCounts get = since(before);
      assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("deep");
      getGets[w] = get.get();
      assertThat(get.total()).isEqualTo(get.get()); // no LIST, no HEAD
    }
    // ref + root + a + a/b: 4 GETs; the file: ref + root + a + a/b + a/b/c + its blob: 6; the same at both widths.
    assertThat(lsGets).containsExactly(4, 4);
    assertThat(getGets).containsExactly(6, 6);
  }

  @Test
  void recursiveLsListsTheSubtreeWithSizes() throws Exception {
    push(dataset("data", 2), "latest");

    VersionListing.Result listing = VersionListing.list(remote, remote.resolveRoot("latest"), "latest", "a", true);

    assertThat(listing.items()).extracting(VersionListing.Item::path)
        .containsExactly("a/b", "a/b/c", "a/b/c/deep.txt", "a/b/c/w0", "a/b/c/w1", "a/b/sibling.txt");
    assertThat(listing.items().get(2).size()).isEqualTo(4);
    assertThat(listing.items().get(2).digest()).isEqualTo(Digest.of("deep".getBytes(StandardCharsets.UTF_8)).text());
    assertThat(listing.items().get(0).size()).isEqualTo(4 + 2 + 2 + 7);
  }

  @Test
  void aMissingPathOrAFileOnTheWayIsRefusedInOneLine() throws Exception {
    push(dataset("data", 2), "latest");
    TreeObject root = remote.resolveRoot("latest");

    assertThatThrownBy(() -> VersionListing.list(remote, root, "latest", "a/nope/x", false))
        .hasMessage("Cannot find a/nope/x in latest: a/nope does not exist there");
    assertThatThrownBy(() -> VersionListing.list(remote, root, "latest", "a/b/sibling.txt/x", false))
        .hasMessage("Cannot find a/b/sibling.txt/x in latest: a/b/sibling.txt is a file, not a folder");
    assertThatThrownBy(() -> VersionListing.list(remote, root, "latest", "a/../etc", false))
        .hasMessage("Invalid path: a/../etc (must be names joined by '/', without empty, . or .. components)");
    assertThatThrownBy(() -> Get.find(remote, "latest", "a/.quarry/config"))
        .hasMessage("Invalid path: a/.quarry/config (.quarry is a folder's state, which no version holds)");
  }

  @Test
  void diffReportsAddedDeletedModifiedAndRenamedReadingOnlyTheFoldersThatDiffer() throws Exception {
    Path data = dataset("data", 30);
    push(data, "v1");
    Files.writeString(data.resolve("a/b/c/deep.txt"), "deeper");
    Files.move(data.resolve("a/b/sibling.txt"), data.resolve("a/moved.txt"));
    Files.delete(data.resolve("a/b/c/w0"));
    Files.writeString(data.resolve("a/b/c/new"), "new");
    push(data, "v2");

    RequestCounts before = remote.store().requests().snapshot();
    TreeDiff.Result diff = TreeDiff.compare(TreeDiff.Trees.of(remote), remote.resolveRoot("v1"),
        TreeDiff.Trees.of(remote), remote.resolveRoot("v2"));
    RequestCounts requests = since(before);

    assertThat(diff.changes()).extracting(Change::kind, Change::path, Change::from).containsExactly(
        org.assertj.core.groups.Tuple.tuple(Kind.MODIFIED, "a/b/c/deep.txt", null),
        org.assertj.core.groups.Tuple.tuple(Kind.ADDED, "a/b/c/new", null),
        org.assertj.core.groups.Tuple.tuple(Kind.DELETED, "a/b/c/w0", null),
        org.assertj.core.groups.Tuple.tuple(Kind.RENAMED, "a/moved.txt", "a/b/sibling.txt"));
    // a, a/b and a/b/c on each side; never one of the 30 wide folders, never a blob.
    assertThat(diff.manifestsRead()).isEqualTo(6);
    assertThat(requests.get()).isEqualTo(2 + 2 + 6);
    assertThat(requests.total()).isEqualTo(requests.get());
  }

  @Test
  void diffOfAVersionAndTheFolderNamesLocalChanges() throws Exception {
    Path data = dataset("data", 2);
    push(data, "latest");
    Files.writeString(data.resolve("wide-1/f0"), "edited");
    Files.createDirectories(data.resolve("new/sub"));
    Files.writeString(data.resolve("new/sub/x"), "x");
    deleteTree(data.resolve("wide-0"));

    TreeDiff.Result diff;
    try (SyncSession session = new SyncSession(data, null, remote, QUIET)) {
      LocalTree tree = session.scan("diff");
      diff = TreeDiff.compare(TreeDiff.Trees.of(remote), remote.resolveRoot("latest"),
          TreeDiff.Trees.of(tree.manifests()), tree.top().manifest().top());
    }

    assertThat(diff.changes()).extracting(change -> change.kind() + " " + change.path())
        .containsExactly("ADDED new/sub/x", "DELETED wide-0/f0", "DELETED wide-0/f1", "MODIFIED wide-1/f0");
  }

  @Test
  void getWritesAFileAtomicallyAndAFolderAsPullDoes() throws Exception {
    push(dataset("data", 2), "latest");
    Path out = Files.createDirectories(temp.resolve("out"));
    Files.writeString(out.resolve("deep.txt"), "old");

    Path written = Get.toFile(remote, Get.find(remote, "latest", "a/b/c/deep.txt"), out);

    assertThat(written).isEqualTo(out.resolve("deep.txt"));
    assertThat(out.resolve("deep.txt")).hasContent("deep");
    assertThat(Get.toFile(remote, Get.find(remote, "latest", "a/b/sibling.txt"), out.resolve("renamed")))
        .hasContent("sibling");

    Path folder = temp.resolve("c-copy");
    try (SyncSession session = new SyncSession(folder, temp.resolve("get-state"), remote, QUIET)) {
      SyncResult result = Get.folder(session, Get.find(remote, "latest", "a/b/c"), false);
      assertThat(result.files()).isEqualTo(3);
    }
    try (Stream<Path> files = Files.list(folder)) {
      assertThat(files.map(path -> path.getFileName().toString()).sorted()).containsExactly("deep.txt", "w0", "w1");
    }
  }

  @Test
  void aVersionWithAPathLongerThanPathMaxIsRefusedByLsDiffAndPull() throws Exception {
    HandMadeRemote hand = new HandMadeRemote(remote);
    Digest content = hand.blob("deep");
    Manifest folder = hand.tree(TreeEntry.file("f", 0644, content));
    for (int depth = 0; depth < 17; depth++) {
      folder = hand.tree(TreeEntry.directory("d".repeat(240) + depth, 0755, folder.digest(), 1, content.size()));
    }
    Manifest root = folder;
    Manifest empty = hand.tree();
    String message = "Invalid path in a version: ";
    assertThatThrownBy(() -> VersionListing.list(remote, root.top(), root.digest().text(), "", true))
        .hasMessageStartingWith(message).hasMessageEndingWith("(must be at most 4096 bytes, Linux's PATH_MAX)");
    assertThatThrownBy(() -> TreeDiff.compare(TreeDiff.Trees.of(remote), empty.top(), TreeDiff.Trees.of(remote), root.top()))
        .hasMessageStartingWith(message);
    Path into = Files.createDirectories(temp.resolve("into"));
    try (SyncSession session = new SyncSession(into, temp.resolve("state"), remote, QUIET)) {
      assertThatThrownBy(() -> Pull.run(session, new Pull.Options(root.digest().text(), List.of(), false, null,
          false)))
          .hasMessageContaining(message);
    }
  }

  @Test
  void getOfACorruptBlobLeavesTheDestinationAsItWas() throws Exception {
    HandMadeRemote hand = new HandMadeRemote(remote);
    Digest real = Digest.of("real".getBytes(StandardCharsets.UTF_8));
    remote.store().put(remote.layout().blobKey(real), "fake".getBytes(StandardCharsets.UTF_8));
    Manifest root = hand.tree(TreeEntry.file("f", 0644, real));
    Path out = Files.createDirectories(temp.resolve("out"));
    Files.writeString(out.resolve("f"), "before");

    assertThatThrownBy(() -> Get.toFile(remote, Get.find(remote, root.digest().text(), "f"), out))
        .hasMessageContaining("is corrupt: its bytes hash to").hasMessageNotContaining("\n");

    try (Stream<Path> files = Files.list(out)) {
      assertThat(files).containsExactly(out.resolve("f")); // no temporary left behind
    }
    assertThat(out.resolve("f")).hasContent("before");
    assertThatThrownBy(() -> Get.toStream(remote, Get.find(remote, root.digest().text(), ""), NullOutputStream.INSTANCE))
        .hasMessage("Cannot get / of " + root.digest().text() + " as a file: it is a folder (name a folder to write"
            + " it into)");
  }

  private static void deleteTree(Path path) throws IOException {
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path each : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(each);
      }
    }
  }
}
