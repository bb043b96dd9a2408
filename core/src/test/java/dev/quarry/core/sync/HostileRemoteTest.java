package dev.quarry.core.sync;

import static dev.quarry.core.sync.HandMadeRemote.dirJson;
import static dev.quarry.core.sync.HandMadeRemote.fileJson;
import static dev.quarry.core.sync.HandMadeRemote.manifestJson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.pull.Pull;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SortedMap;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Versions crafted by hand, as a hostile or broken remote could serve them: each is refused with a one-line message,
 * and the folder pulled into is left exactly as it was.
 */
class HostileRemoteTest {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  @TempDir Path temp;
  Path target;
  HandMadeRemote hand;
  CasRemote remote;
  private Digest a;

  /** The store the remote reads; a subclass may wrap it. */
  ObjectStore openStore(Path root) {
    return new FileStore(root);
  }

  @BeforeEach
  void prepare() throws IOException {
    remote = new CasRemote(openStore(temp.resolve("remote")), "cas", 4);
    hand = new HandMadeRemote(remote);
    a = hand.blob("a");
    target = Files.createDirectories(temp.resolve("target"));
    Files.createDirectories(target.resolve("sub"));
    Files.writeString(target.resolve("sub/mine"), "mine");
    Files.writeString(target.resolve("x"), "local x");
  }

  @AfterEach
  void closeStore() throws IOException {
    remote.store().close();
  }

  /** Pulls the version and checks the refusal: one line, starting with what it could not do, folder untouched. */
  void assertRefused(String version, String expected) throws IOException {
    SortedMap<String, String> before = TreeSnapshot.of(target);
    assertThatThrownBy(() -> {
      try (SyncSession session = new SyncSession(target, null, remote, QUIET)) {
        Pull.run(session, new Pull.Options(version, List.of(), true, null, true)); // the most permissive pull
      }
    }).satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").doesNotContain("\r")
        .matches("(Cannot|Invalid) .*").contains(expected));
    assertThat(TreeSnapshot.of(target)).isEqualTo(before);
  }

  void assertRefused(Digest root, String expected) throws IOException {
    assertRefused(root.text(), expected);
  }

  @Test
  void namesThatCouldEscapeOrCollideAreRefused() throws Exception {
    for (String name : List.of("..", ".", "/abs", "a/b", "", "nul\0", "x/../../..")) {
      assertRefused(hand.rawTree(manifestJson(fileJson(name, "0644", a))), "Invalid entry name");
    }
    assertRefused(hand.rawTree(manifestJson(fileJson("x", "0644", a), fileJson("x", "0644", a))),
        "is duplicated or out of order");
    assertRefused(hand.rawTree(manifestJson(fileJson("y", "0644", a), fileJson("x", "0644", a))),
        "is duplicated or out of order");
    assertRefused(hand.rawTree(manifestJson(fileJson("n".repeat(256), "0644", a))), "at most 255 bytes");
  }

  @Test
  void aNameWithControlCharactersIsNotEchoedRaw() throws Exception {
    assertRefused(hand.rawTree(manifestJson(fileJson("..", "0644", a), fileJson("evil\n\u001b[2J", "0644", a))),
        "Invalid entry name");
    assertRefused(hand.rawTree(manifestJson(fileJson("bad\u001b[31m/x", "0644", a))), "bad\\u001b[31m/x");
  }

  @Test
  void bidirectionalOverridesInANameAreEscaped() throws Exception {
    for (char c : new char[] {'\u202a', '\u202e', '\u2066', '\u2069'}) {
      Manifest sub = hand.tree(TreeEntry.file(".quarry", 0644, a));
      String name = "txt." + c + "exe";
      assertRefused(hand.tree(TreeEntry.directory(name, 0755, sub.digest(), 1, 1)).digest(),
          "it names txt.\\u" + String.format("%04x", (int) c) + "exe/.quarry");
    }
  }

  @Test
  void whatACanonicalWriterWouldNotWriteIsRefused() throws Exception {
    String file = fileJson("x", "0644", a);
    assertRefused(hand.rawTree(manifestJson(file).replace("{\"format\"", "{ \"format\"")), "not canonical");
    assertRefused(hand.rawTree(manifestJson(file.replace("}", ",\"files\":1}"))), "not canonical");
    assertRefused(hand.rawTree(manifestJson(file.replace("0644", "0999"))), "four-digit octal mode");
    assertRefused(hand.rawTree(manifestJson(file.replace("\"file\"", "\"fifo\""))), "Invalid entry type: fifo");
    assertRefused(hand.rawTree(manifestJson(file.replace("\"file\"", "\"symlink\""))), "a symbolic link has");
    assertRefused(hand.rawTree(manifestJson(file) + "garbage"), "Invalid tree manifest");
    assertRefused(hand.rawTree("{\"format\":\"quarry-tree/1\",\"entries\":[{\"name\":\"secret-content"),
        "Invalid tree manifest");
  }

  @Test
  void jsonErrorsDoNotQuoteTheObject() throws Exception {
    Digest digest = hand.rawTree("{\"format\":\"quarry-tree/1\",\"entries\":[{\"name\" SECRET-TOKEN-123}]}");
    SortedMap<String, String> before = TreeSnapshot.of(target);
    assertThatThrownBy(() -> {
      try (SyncSession session = new SyncSession(target, null, remote, QUIET)) {
        Pull.run(session, new Pull.Options(digest.text(), List.of(), false, null, false));
      }
    }).hasMessageContaining("Invalid tree manifest").hasMessageNotContaining("SECRET");
    assertThat(TreeSnapshot.of(target)).isEqualTo(before);
  }

  @Test
  void wrongSizesAndCountsAreRefused() throws Exception {
    Manifest sub = hand.tree(TreeEntry.file("f", 0644, a));
    Digest wrongSize = new Digest(sub.digest().hex(), sub.encodedLength() + 1);
    assertRefused(hand.rawTree(manifestJson(dirJson("d", wrongSize, 1, 1))), "is corrupt");
    assertRefused(hand.rawTree(manifestJson(dirJson("d", sub.digest(), 1000, 1))),
        "declares 1000 files and 1 bytes, but its manifest holds 1 files and 1 bytes");
    assertRefused(hand.rawTree(manifestJson(dirJson("d", sub.digest(), 1, 0))), "declares 1 files and 0 bytes");
    Digest shortBlob = new Digest(a.hex(), 0 + 5);
    assertRefused(hand.rawTree(manifestJson(fileJson("f", "0644", shortBlob))), "is corrupt");
    Digest longBlob = hand.blob("longer than declared");
    assertRefused(hand.rawTree(manifestJson(fileJson("f", "0644", new Digest(longBlob.hex(), 3)))),
        "is larger than its digest declares (3 bytes)");
  }

  @Test
  void wrongTypesAndMissingObjectsAreRefused() throws Exception {
    Manifest sub = hand.tree(TreeEntry.file("f", 0644, a));
    assertRefused(hand.rawTree(manifestJson(dirJson("d", a, 1, 1))), "does not exist");
    assertRefused(hand.rawTree(manifestJson(fileJson("f", "0644", sub.digest()))), "missing from the remote");
    assertRefused(new Digest("0".repeat(64), 10).text(), "does not exist");
  }

  @Test
  void aVersionWritingIntoTheReservedStateFolderIsRefused() throws Exception {
    Manifest remotes = hand.tree(TreeEntry.file("planted.db", 0644, a));
    assertRefused(hand.tree(TreeEntry.directory(".quarry", 0755, remotes.digest(), 1, 1)).digest(),
        "it names .quarry");
    assertRefused(hand.tree(TreeEntry.symlink(".quarry", "/tmp")).digest(), "it names .quarry");
    assertRefused(hand.tree(TreeEntry.file(".quarry", 0644, a)).digest(), "it names .quarry");
  }

  @Test
  void aStateFolderAtAnyDepthIsRefused() throws Exception {
    Manifest remotes = hand.tree(TreeEntry.file("planted.db", 0644, a));
    Manifest state = hand.tree(TreeEntry.directory("remotes", 0755, remotes.digest(), 1, 1));
    Manifest sub = hand.tree(TreeEntry.directory(".quarry", 0755, state.digest(), 1, 1), TreeEntry.file("f", 0644, a));
    assertRefused(hand.tree(TreeEntry.directory("sub", 0755, sub.digest(), 2, 2)).digest(),
        "it names sub/.quarry, a sync state folder, which no version may hold at any depth");
    Manifest deeper = hand.tree(TreeEntry.file(".quarry", 0644, a));
    assertRefused(hand.tree(TreeEntry.directory("d", 0755, deeper.digest(), 1, 1)).digest(), "it names d/.quarry");
  }

  @Test
  @Timeout(60)
  void aManifestBombOfRepeatedChildrenFailsFast() throws Exception {
    Manifest level = hand.tree(TreeEntry.file("f", 0644, a));
    for (int i = 0; i < 40; i++) {
      level = hand.tree(TreeEntry.directory("l", 0755, level.digest(), level.files(), level.bytes()),
          TreeEntry.directory("r", 0755, level.digest(), level.files(), level.bytes()));
    }
    assertRefused(level.digest(), "declares up to 1099511627776 files");
  }

  @Test
  @Timeout(120)
  void aBombOfEmptyFoldersFailsFast() throws Exception {
    Manifest level = hand.tree();
    for (int i = 0; i < 40; i++) {
      level = hand.tree(TreeEntry.directory("l", 0755, level.digest(), 0, 0),
          TreeEntry.directory("r", 0755, level.digest(), 0, 0));
    }
    assertRefused(level.digest(), "more paths than this JVM can hold");
  }

  @Test
  @Timeout(60)
  void aWideLevelOfLargeManifestsIsRefusedBeforeItIsFetched() throws Exception {
    String[] folders = new String[16];
    for (int i = 0; i < folders.length; i++) { // never stored: refused on what the entries declare
      Digest large = new Digest(String.format("%064x", i + 1), 200L << 20);
      folders[i] = dirJson("d" + (char) ('a' + i), large, 0, 0);
    }
    assertRefused(hand.rawTree(manifestJson(folders)), "its folders at depth 1 declare 3355443200 bytes of manifests,"
        + " more than this JVM can read at once");
  }

  @Test
  void symbolicLinksAreWrittenAsLinksNeverFollowed() throws Exception {
    Path outside = Files.createDirectories(temp.resolve("outside"));
    Files.createSymbolicLink(target.resolve("escape"), outside);
    SortedMap<String, String> before = TreeSnapshot.of(target);
    Manifest inner = hand.tree(TreeEntry.file("planted", 0644, a));
    Digest blocked = hand.tree(TreeEntry.directory("escape", 0777, inner.digest(), 1, 1),
        TreeEntry.file("x", 0644, a)).digest();
    // "escape" is a local link where the version has a folder: pull replaces the link; never writes through it.
    try (SyncSession session = new SyncSession(target, null, remote, QUIET)) {
      assertThatThrownBy(() -> Pull.run(session, new Pull.Options(blocked.text(), List.of(), false, null, false)))
          .hasMessageContaining("differ from both").hasMessageContaining(": x");
    }
    assertThat(TreeSnapshot.of(target)).isEqualTo(before);
    assertThat(outside).isEmptyDirectory();
  }
}
