package dev.quarry.core.sync.cas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Chunked folders (docs/formats.md, "Chunked folders"): what one change costs, and what decoding refuses. */
class ChunkedManifestTest {
  private static final Digest CONTENT = Digest.of("x".getBytes(StandardCharsets.UTF_8));

  @Test
  void oneChangeInAFolderOf200000EntriesWritesOneChunkAndTheIndex() {
    List<TreeEntry> entries = files(200_000);
    Manifest before = Manifest.of(entries);
    entries.set(123_456, TreeEntry.file(entries.get(123_456).name(), 0644, Digest.of(new byte[] {1})));
    Manifest after = Manifest.of(entries);

    long whole = before.objects().stream().filter(object -> !object.isIndex())
        .mapToLong(TreeObject::encodedLength).sum();
    List<TreeObject> written = newObjects(before, after);
    long writtenBytes = written.stream().mapToLong(TreeObject::encodedLength).sum();
    assertThat(before.isChunked()).isTrue();
    assertThat(written).as("objects a push of the change uploads").hasSize(2);
    assertThat(writtenBytes).as("bytes a push of the change uploads, of %d", whole).isLessThan(600_000);
    assertThat(after.entries()).isEqualTo(entries);
    assertThat(after.files()).isEqualTo(200_000);
  }

  @Test
  void aFolderSortedAndChunkedOnAllCoresIsTheOneTheSequentialRuleGives() {
    // Names around the UTF-16 surrogates: UTF-8 order puts U+E000..U+FFFF before them, Java's String order after.
    String[] stems = {"a", "\uE000", "\uFFFD", "\uD83D\uDE00", "\u00E9", "z"};
    List<TreeEntry> entries = new ArrayList<>();
    for (int i = 0; i < 60_000; i++) {
      entries.add(TreeEntry.file(stems[i % stems.length] + i, 0644, CONTENT));
    }
    java.util.Collections.shuffle(entries, new java.util.Random(21));

    Manifest folder = Manifest.of(entries);

    List<String> names = entries.stream().map(TreeEntry::name).sorted(dev.quarry.core.store.KeyOrder.UTF8_BINARY)
        .toList();
    assertThat(folder.entries()).extracting(TreeEntry::name).containsExactlyElementsOf(names);
    List<String> firsts = new ArrayList<>();
    java.security.MessageDigest sha256 = Digest.sha256();
    int start = 0;
    for (int i = 0; i < names.size(); i++) {
      if (i == start) {
        firsts.add(names.get(i));
      }
      int held = i + 1 - start;
      if (held >= Chunking.MAX_ITEMS || (held >= Chunking.MIN_ITEMS && Chunking.isBoundary(sha256, names.get(i)))) {
        start = i + 1;
      }
    }
    List<String> chunkFirsts = folder.objects().stream().filter(object -> !object.isIndex())
        .map(object -> object.leaf().entries().getFirst().name()).toList();
    assertThat(chunkFirsts).containsExactlyElementsOf(firsts);
    assertThat(Manifest.of(folder.entries()).digest()).isEqualTo(folder.digest());
    assertThatThrownBy(() -> Manifest.of(List.of(entries.get(0), entries.get(1), entries.get(0))))
        .hasMessage("Invalid tree manifest: entry " + TreeEntry.printable(entries.get(0).name())
            + " is duplicated or out of order");
  }

  @Test
  void anInsertOrADeleteWritesAtMostTwoChunksAndTheIndex() {
    List<TreeEntry> entries = files(50_000);
    Manifest before = Manifest.of(entries);
    List<TreeEntry> inserted = new ArrayList<>(entries);
    inserted.add(TreeEntry.file("f0025000-new", 0644, CONTENT));
    assertThat(newObjects(before, Manifest.of(inserted)).size()).isBetween(2, 3);
    List<TreeEntry> deleted = new ArrayList<>(entries);
    deleted.remove(40_000);
    assertThat(newObjects(before, Manifest.of(deleted)).size()).isBetween(2, 3);
  }

  @Test
  void aFolderOfUpTo4096EntriesKeepsItsOneFormat1Manifest() {
    Manifest small = Manifest.of(files(Chunking.MAX_ITEMS));
    assertThat(small.isChunked()).isFalse();
    assertThat(small.objects()).hasSize(1);
    assertThat(new String(small.encoded(), StandardCharsets.UTF_8)).startsWith("{\"format\":\"quarry-tree/1\"");
    assertThat(Manifest.of(files(Chunking.MAX_ITEMS + 1)).isChunked()).isTrue();
  }

  @Test
  void aChunkedFolderIsAssembledBackFromItsObjects() {
    Manifest folder = Manifest.of(files(20_000));
    Map<Digest, TreeObject> parts = new HashMap<>();
    folder.objects().forEach(object -> parts.put(object.digest(), object));
    ChunkIndex top = TreeObject.decode(folder.encoded()).index();
    for (TreeObject object : folder.objects()) {
      TreeObject decoded = TreeObject.decode(object.encoded());
      assertThat(decoded.digest()).isEqualTo(object.digest());
      assertThat(decoded.isIndex()).isEqualTo(object.isIndex());
      assertThat(decoded.trees()).isEqualTo(object.trees());
    }
    Manifest assembled = Manifest.assemble(top, parts);
    assertThat(assembled.entries()).isEqualTo(folder.entries());
    assertThat(assembled.digest()).isEqualTo(folder.digest());
  }

  @Test
  void anIndexOfHeightTwoIsReadThroughItsLevels() {
    Manifest left = Manifest.of(List.of(TreeEntry.file("a", 0644, CONTENT), TreeEntry.file("b", 0644, CONTENT)));
    Manifest right = Manifest.of(List.of(TreeEntry.file("c", 0644, CONTENT)));
    ChunkIndex lower1 = ChunkIndex.of(1, List.of(chunk("a", left)));
    ChunkIndex lower2 = ChunkIndex.of(1, List.of(chunk("c", right)));
    ChunkIndex top = ChunkIndex.of(2, List.of(chunk("a", lower1), chunk("c", lower2)));
    Map<Digest, TreeObject> parts = objects(TreeObject.of(left), TreeObject.of(right), TreeObject.of(lower1),
        TreeObject.of(lower2));
    assertThat(Manifest.assemble(top, parts).entries()).extracting(TreeEntry::name).containsExactly("a", "b", "c");

    ChunkIndex leafUnderTwo = ChunkIndex.of(2, List.of(chunk("a", left)));
    assertThatThrownBy(() -> Manifest.assemble(leafUnderTwo, parts))
        .hasMessageEndingWith("must be a chunk index of height 1");
  }

  @Test
  void hostileIndexesAreRefused() {
    Manifest ab = Manifest.of(List.of(TreeEntry.file("a", 0644, CONTENT), TreeEntry.file("b", 0644, CONTENT)));
    Manifest bc = Manifest.of(List.of(TreeEntry.file("b", 0644, CONTENT), TreeEntry.file("c", 0644, CONTENT)));
    Map<Digest, TreeObject> parts = objects(TreeObject.of(ab), TreeObject.of(bc));
    String digest = ab.digest().hex();

    assertThatThrownBy(() -> TreeObject.decode(bytes("{\"format\":\"quarry-tree-index/2\",\"height\":1,\"chunks\":[]}")))
        .hasMessage("Invalid tree manifest format: quarry-tree-index/2 (must be quarry-tree/1 or quarry-tree-index/1;"
            + " a newer Quarry wrote it?)");
    assertThatThrownBy(() -> ChunkIndex.decode(index(0, chunkJson("a", ab, 2))))
        .hasMessage("Invalid chunk index: height 0 (must be 1 to 4)");
    assertThatThrownBy(() -> ChunkIndex.decode(index(5, chunkJson("a", ab, 2))))
        .hasMessage("Invalid chunk index: height 5 (must be 1 to 4)");
    assertThatThrownBy(() -> ChunkIndex.decode(index(1)))
        .hasMessage("Invalid chunk index: it lists no chunks");
    assertThatThrownBy(() -> ChunkIndex.decode(index(1, chunkJson("b", ab, 2), chunkJson("a", bc, 2))))
        .hasMessage("Invalid chunk index: chunk 1 starts at a, not after the chunk before it");
    assertThatThrownBy(() -> ChunkIndex.decode(index(1, chunkJson("a", ab, 2), chunkJson("a", bc, 2))))
        .hasMessage("Invalid chunk index: chunk 1 starts at a, not after the chunk before it");
    assertThatThrownBy(() -> ChunkIndex.decode(index(1, chunkJson("a", ab, 5000))))
        .hasMessageStartingWith("Invalid chunk index: chunk 0 declares 5000 entries (must be 1 to 4096");
    assertThatThrownBy(() -> ChunkIndex.decode(index(1, chunkJson("a/b", ab, 2))))
        .hasMessageStartingWith("Invalid entry name: a/b");
    assertThatThrownBy(() -> ChunkIndex.decode(bytes(new String(index(1, chunkJson("a", ab, 2)),
        StandardCharsets.UTF_8).replace(",\"height\"", ", \"height\"")))).hasMessageStartingWith(
            "Invalid chunk index: not canonical");
    assertThatThrownBy(() -> ChunkIndex.decode(bytes(new String(index(1, chunkJson("a", ab, 2)),
        StandardCharsets.UTF_8).replace("\"bytes\":2}", "\"bytes\":2,\"more\":1}"))))
        .hasMessage("Invalid chunk index: unknown field more");
    String huge = "{\"first\":\"%s\",\"sha256\":\"" + digest + "\",\"size\":1,\"entries\":1,\"files\":1,\"bytes\":"
        + Long.MAX_VALUE + "}";
    assertThatThrownBy(() -> ChunkIndex.decode(index(1, huge.formatted("a"), huge.formatted("b"))))
        .hasMessage("Invalid chunk index: its totals overflow");

    ChunkIndex overlapping = ChunkIndex.of(1, List.of(chunk("a", ab), chunk("b", bc)));
    assertThatThrownBy(() -> Manifest.assemble(overlapping, parts))
        .hasMessageEndingWith("overlaps the next chunk: its entry b is not before b");
    ChunkIndex lyingFirst = ChunkIndex.of(1, List.of(new ChunkIndex.Chunk("0", ab.digest(), 2, 2, 2)));
    assertThatThrownBy(() -> Manifest.assemble(lyingFirst, parts))
        .hasMessageEndingWith("starts at a, not at 0 as the index declares");
    ChunkIndex lyingTotals = ChunkIndex.of(1, List.of(new ChunkIndex.Chunk("a", ab.digest(), 2, 2, 1000)));
    assertThatThrownBy(() -> Manifest.assemble(lyingTotals, parts))
        .hasMessageEndingWith("holds 2 entries, 2 files and 2 bytes, but the index declares 2, 2 and 1000");
    ChunkIndex missing = ChunkIndex.of(1, List.of(new ChunkIndex.Chunk("a", CONTENT, 1, 1, 1)));
    assertThatThrownBy(() -> Manifest.assemble(missing, parts))
        .hasMessage("Invalid chunk index: its chunk sha256:" + CONTENT.hex() + " was not read");
  }

  @Test
  void aRebuildFromTheRecordedChunksIsTheFullBuildAndBuildsOnlyTheChunksAChangeTouches() {
    // Each edit as a scan sees it: the entries now and the names that may differ from the build the chunks are of.
    // The recorded digests are replaced by made-up ones, so every chunk taken as recorded shows in the result.
    List<java.util.function.BiFunction<List<TreeEntry>, Set<String>, List<TreeEntry>>> edits = List.of(
        (entries, changed) -> { // a content, in place
          entries.set(20_000, TreeEntry.file(entries.get(20_000).name(), 0644, Digest.of(bytes("new"))));
          changed.add(entries.get(20_000).name());
          return entries;
        },
        (entries, changed) -> { // a mode
          entries.set(31_000, TreeEntry.file(entries.get(31_000).name(), 0755, CONTENT));
          changed.add(entries.get(31_000).name());
          return entries;
        },
        (entries, changed) -> { // an entry added among others
          entries.add(TreeEntry.file("f0012345a", 0644, CONTENT));
          changed.add("f0012345a");
          return entries;
        },
        (entries, changed) -> { // an entry gone: nothing names it as changed
          entries.remove(12_345);
          return entries;
        },
        (entries, changed) -> { // the first entry of a chunk gone, and the last entry of the folder
          entries.remove(firstOfChunk(entries, 5));
          entries.removeLast();
          return entries;
        },
        (entries, changed) -> { // entries added after the last: the last chunk ended with the folder, not at a cut
          for (int i = 0; i < 3; i++) {
            entries.add(TreeEntry.file("g" + i, 0644, CONTENT));
            changed.add("g" + i);
          }
          return entries;
        },
        (entries, changed) -> { // one entry gone and another come in the same chunk: as many entries as before
          entries.remove(40_001);
          entries.add(TreeEntry.file("f0040001b", 0644, CONTENT));
          changed.add("f0040001b");
          return entries;
        },
        (entries, changed) -> { // 5000 entries added at one place: more than a chunk holds
          for (int i = 0; i < 5000; i++) {
            entries.add(TreeEntry.file(String.format("f0025000-%04d", i), 0644, CONTENT));
            changed.add(String.format("f0025000-%04d", i));
          }
          return entries;
        });
    for (int e = 0; e < edits.size(); e++) {
      List<TreeEntry> entries = files(50_000);
      Manifest before = Manifest.of(entries);
      List<ChunkIndex.Chunk> poisoned = new ArrayList<>();
      Set<Digest> madeUp = new HashSet<>();
      for (ChunkIndex.Chunk chunk : before.chunks()) {
        Digest digest = Digest.of(bytes("made up " + chunk.first()));
        madeUp.add(digest);
        poisoned.add(new ChunkIndex.Chunk(chunk.first(), digest, chunk.entries(), chunk.files(), chunk.bytes()));
      }
      Set<String> changed = new HashSet<>();
      List<TreeEntry> edited = edits.get(e).apply(new ArrayList<>(entries), changed);
      java.util.Collections.shuffle(edited, new java.util.Random(e)); // a walk's order is any order

      Manifest full = Manifest.of(edited);
      Manifest reused = Manifest.of(edited, before.chunks(), changed);
      assertThat(reused.digest()).as("edit %d", e).isEqualTo(full.digest());
      assertThat(reused.chunks()).as("edit %d", e).isEqualTo(full.chunks());
      assertThat(reused.objects()).extracting(TreeObject::digest).as("edit %d", e)
          .containsExactlyElementsOf(full.objects().stream().map(TreeObject::digest).toList());

      Manifest taken = Manifest.of(edited, poisoned, changed);
      long built = taken.chunks().stream().filter(chunk -> !madeUp.contains(chunk.digest())).count();
      assertThat(built).as("chunks built after edit %d, of %d", e, full.chunks().size())
          .isBetween(1L, e == edits.size() - 1 ? 8L : 3L);
      // A chunk taken as recorded is checked when its bytes are asked for: a wrong record never stands for them.
      TreeObject wrong = taken.objects().stream().filter(object -> madeUp.contains(object.digest())).findFirst()
          .orElseThrow();
      assertThatThrownBy(wrong::encoded).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("its entries are another manifest");
    }
  }

  /** The index, in the sorted {@code entries}, of the first entry of chunk {@code k}. */
  private static int firstOfChunk(List<TreeEntry> entries, int k) {
    String first = Manifest.of(entries).chunks().get(k).first();
    return entries.stream().map(TreeEntry::name).toList().indexOf(first);
  }

  private static List<TreeObject> newObjects(Manifest before, Manifest after) {
    Set<Digest> old = new HashSet<>();
    before.objects().forEach(object -> old.add(object.digest()));
    return after.objects().stream().filter(object -> !old.contains(object.digest())).toList();
  }

  private static List<TreeEntry> files(int count) {
    List<TreeEntry> entries = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      entries.add(TreeEntry.file(String.format("f%07d", i), 0644, CONTENT));
    }
    return entries;
  }

  private static ChunkIndex.Chunk chunk(String first, Manifest leaf) {
    return new ChunkIndex.Chunk(first, leaf.digest(), leaf.entries().size(), leaf.files(), leaf.bytes());
  }

  private static ChunkIndex.Chunk chunk(String first, ChunkIndex index) {
    return new ChunkIndex.Chunk(first, index.digest(), index.entries(), index.files(), index.bytes());
  }

  private static Map<Digest, TreeObject> objects(TreeObject... objects) {
    Map<Digest, TreeObject> byDigest = new HashMap<>();
    for (TreeObject object : objects) {
      byDigest.put(object.digest(), object);
    }
    return byDigest;
  }

  private static String chunkJson(String first, Manifest leaf, long entries) {
    return "{\"first\":\"" + first + "\",\"sha256\":\"" + leaf.digest().hex() + "\",\"size\":" + leaf.digest().size()
        + ",\"entries\":" + entries + ",\"files\":2,\"bytes\":2}";
  }

  private static byte[] index(int height, String... chunks) {
    return bytes("{\"format\":\"quarry-tree-index/1\",\"height\":" + height + ",\"chunks\":["
        + String.join(",", chunks) + "]}");
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
