package dev.quarry.core.sync.cas;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.quarry.core.store.KeyOrder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * A directory's canonical manifest (docs/formats.md, "Tree manifests"): its entries sorted by the UTF-8 bytes of
 * their names, written as compact JSON in a fixed field order, so equal folders have byte-identical manifests and
 * therefore equal digests. A folder of more than {@link Chunking#MAX_ITEMS} entries is stored as chunks of its
 * entries, each a manifest, under a {@link ChunkIndex} ("Chunked folders"): then {@link #digest()} and
 * {@link #encoded()} are the top index's, and {@link #objects()} lists every object it is stored as. Decoding refuses anything a canonical writer would not produce: names with '/', ".",
 * "..", duplicates, unsorted entries, but also extra fields, spacing or any other byte a re-encoding would not give
 * back. Its messages never quote the bytes (a remote's content stays out of logs): a malformed manifest is named by
 * the byte offset where it stops being JSON.
 */
public final class Manifest {
  public static final String FORMAT = "quarry-tree/1";
  /**
   * The largest tree object read when nothing declares its size (a root named by its hash alone): a manifest of
   * about a million entries, as format 1 wrote for a folder before folders were chunked.
   */
  public static final int MAX_BYTES = 256 << 20;
  private static final Comparator<TreeEntry> BY_NAME = (a, b) -> KeyOrder.compare(a.name(), b.name());
  private static final JsonFactory JSON =
      JsonFactory.builder().disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION).build();

  /** Null until asked for in a manifest {@link #known} by its digest; then as {@link #of} would give them. */
  private List<TreeEntry> entries;
  private byte[] encoded;
  /** What rebuilds the entries of a manifest known by its digest (null once they are built, or from the start). */
  private Supplier<List<TreeEntry>> unbuilt;
  private final Digest digest;
  private final long files;
  private final long bytes;
  /** The top index of a chunked folder; null for a folder of one manifest. */
  private final ChunkIndex index;
  /** The chunks and indexes below the top index, children first; empty for a folder of one manifest. */
  private final List<TreeObject> parts;
  /** A chunked folder's chunks as its lowest index names them, when it was built here; else empty. */
  private List<ChunkIndex.Chunk> chunks = List.of();

  private Manifest(List<TreeEntry> sortedEntries, byte[] encoded) {
    this(sortedEntries, encoded, Digest.of(encoded), null, List.of());
  }

  private Manifest(List<TreeEntry> sortedEntries, ChunkIndex index, List<TreeObject> parts) {
    this(sortedEntries, index.encoded(), index.digest(), index, parts);
  }

  private Manifest(List<TreeEntry> sortedEntries, byte[] encoded, Digest digest, ChunkIndex index,
      List<TreeObject> parts) {
    this.entries = List.copyOf(sortedEntries);
    this.encoded = encoded;
    this.digest = digest;
    this.index = index;
    this.parts = List.copyOf(parts);
    this.files = sortedEntries.stream().mapToLong(TreeEntry::files).sum();
    this.bytes = sortedEntries.stream().mapToLong(TreeEntry::bytes).sum();
  }

  private Manifest(Digest digest, long files, long bytes, Supplier<List<TreeEntry>> entries) {
    this.digest = digest;
    this.files = files;
    this.bytes = bytes;
    this.unbuilt = entries;
    this.index = null;
    this.parts = List.of();
  }

  /**
   * The manifest of a folder of one manifest known to be {@code digest} (a scan found the folder as it was when it
   * was last built: TreeScanner), without encoding or hashing it: its entries, in any order, are asked of {@code
   * entries} only when needed, and then encoded and checked against {@code digest}, so that a wrong record can never
   * stand for other bytes.
   */
  public static Manifest known(Digest digest, long files, long bytes, Supplier<List<TreeEntry>> entries) {
    return new Manifest(digest, files, bytes, entries);
  }

  /** Builds the entries and bytes of a manifest {@link #known} by its digest, once. */
  private synchronized void build() {
    if (unbuilt == null) {
      return;
    }
    List<TreeEntry> sorted = List.copyOf(sortedByName(unbuilt.get()));
    if (Chunking.isChunked(sorted.size())) {
      throw new IllegalStateException("A folder of " + sorted.size() + " entries is chunked, not one manifest");
    }
    byte[] bytes = encode(sorted);
    if (!Digest.of(bytes).equals(digest)) {
      throw new IllegalStateException("Cannot use the record of a folder as manifest sha256:" + digest.hex()
          + ": its entries are another manifest (delete the state folder's state.db to start over)");
    }
    entries = sorted;
    encoded = bytes;
    unbuilt = null;
  }

  /** The manifest of a folder with these entries, in any order; chunked when there are more than a manifest holds. */
  public static Manifest of(List<TreeEntry> entries) {
    return of(entries, List.of(), Set.of());
  }

  /**
   * As {@link #of(List)}, taking each chunk of {@code previous} (the {@link #chunks()} of an earlier build of the same
   * folder) whose entries are all still there, unchanged, with nothing added among them, as it was, without encoding
   * or hashing it: one changed entry in a folder of a million builds the chunk around it (two or three when the cuts
   * move) rather than a thousand. {@code changed} names the entries that may differ from that build (new, or another
   * content, mode or target); every other entry is taken to be the earlier build's as it is. A chunk taken so is
   * built from these entries only when something asks for it (a push uploading it), and checked against its digest
   * then.
   */
  public static Manifest of(List<TreeEntry> entries, List<ChunkIndex.Chunk> previous, Set<String> changed) {
    boolean[] dirty = new boolean[entries.size()];
    List<TreeEntry> sorted = sortedByName(entries, previous.isEmpty() ? Set.of() : changed, dirty);
    if (!Chunking.isChunked(sorted.size())) {
      return new Manifest(sorted, encode(sorted));
    }
    List<Manifest> chunks = new ArrayList<>();
    List<ChunkIndex.Chunk> level = new ArrayList<>();
    if (previous.isEmpty()) {
      List<Integer> ends = Chunking.cuts(sorted.stream().map(TreeEntry::name).toList());
      // Each chunk is encoded and hashed on its own, on all cores: a folder of a million entries has about a thousand.
      chunks.addAll(IntStream.range(0, ends.size()).parallel().mapToObj(i -> {
        List<TreeEntry> slice = sorted.subList(i == 0 ? 0 : ends.get(i - 1), ends.get(i));
        return new Manifest(slice, encode(slice));
      }).toList());
    } else {
      reuseChunks(sorted, dirty, previous, chunks, level);
    }
    List<TreeObject> parts = new ArrayList<>();
    for (int i = 0; i < chunks.size(); i++) {
      Manifest chunk = chunks.get(i);
      parts.add(TreeObject.of(chunk));
      if (level.size() == i) {
        level.add(new ChunkIndex.Chunk(chunk.entries().getFirst().name(), chunk.digest(), chunk.entries().size(),
            chunk.files(), chunk.bytes()));
      }
    }
    List<ChunkIndex.Chunk> lowest = List.copyOf(level);
    int height = 1;
    int start;
    while (level.size() > Chunking.MAX_ITEMS) {
      List<ChunkIndex.Chunk> above = new ArrayList<>();
      start = 0;
      for (int end : Chunking.cuts(level.stream().map(ChunkIndex.Chunk::first).toList())) {
        ChunkIndex index = ChunkIndex.of(height, level.subList(start, end));
        parts.add(TreeObject.of(index));
        above.add(new ChunkIndex.Chunk(level.get(start).first(), index.digest(), index.entries(), index.files(),
            index.bytes()));
        start = end;
      }
      level = above;
      height++;
    }
    Manifest manifest = new Manifest(sorted, ChunkIndex.of(height, level), parts);
    manifest.chunks = lowest;
    return manifest;
  }

  /**
   * Cuts {@code sorted} into chunks from the first entry on: where a chunk of {@code previous} starts at the cut
   * reached and holds the same entries (as many, none {@code dirty}, the last before the next previous chunk's
   * first name, and at the end only if it was the last), it is taken as recorded, since the cut rule gives the same
   * chunk from the same start over the same names; elsewhere the next chunk is cut by the rule and built. The cuts
   * meet the previous ones again at the first boundary after a change. Fills {@code chunks} and, for each chunk
   * taken, {@code level} (a built chunk's entry is added by the caller, which knows its entries).
   */
  private static void reuseChunks(List<TreeEntry> sorted, boolean[] dirty, List<ChunkIndex.Chunk> previous,
      List<Manifest> chunks, List<ChunkIndex.Chunk> level) {
    Map<String, Integer> byFirst = new java.util.HashMap<>();
    for (int k = 0; k < previous.size(); k++) {
      byFirst.put(previous.get(k).first(), k);
    }
    MessageDigest sha256 = Digest.sha256();
    List<int[]> built = new ArrayList<>(); // start and end of each chunk to build, at its place in chunks
    List<Integer> builtAt = new ArrayList<>();
    int at = 0;
    while (at < sorted.size()) {
      Integer k = byFirst.get(sorted.get(at).name());
      int taken = k == null ? -1 : sameChunk(sorted, dirty, at, previous, k);
      if (taken > 0) {
        ChunkIndex.Chunk chunk = previous.get(k);
        int from = at;
        chunks.add(known(chunk.digest(), chunk.files(), chunk.bytes(), () -> sorted.subList(from, from + taken)));
        level.add(chunk);
        at += taken;
        continue;
      }
      int end = at;
      while (end < sorted.size()) {
        end++;
        int held = end - at;
        if (held >= Chunking.MAX_ITEMS || (held >= Chunking.MIN_ITEMS
            && Chunking.isBoundary(sha256, sorted.get(end - 1).name()))) {
          break;
        }
      }
      built.add(new int[] {at, end});
      builtAt.add(chunks.size());
      chunks.add(null);
      level.add(null);
      at = end;
    }
    IntStream.range(0, built.size()).parallel().forEach(i -> {
      List<TreeEntry> slice = sorted.subList(built.get(i)[0], built.get(i)[1]);
      Manifest chunk = new Manifest(slice, encode(slice));
      chunks.set(builtAt.get(i), chunk);
      level.set(builtAt.get(i), new ChunkIndex.Chunk(slice.getFirst().name(), chunk.digest(), slice.size(),
          chunk.files(), chunk.bytes()));
    });
  }

  /** How many entries chunk {@code k} of {@code previous} takes from {@code at}, when it is the same chunk; else 0. */
  private static int sameChunk(List<TreeEntry> sorted, boolean[] dirty, int at, List<ChunkIndex.Chunk> previous,
      int k) {
    ChunkIndex.Chunk chunk = previous.get(k);
    long count = chunk.entries();
    boolean last = k == previous.size() - 1;
    if (count <= 0 || at + count > sorted.size() || (last && at + count != sorted.size())) {
      return 0; // the last chunk ended with the folder, not at a cut: more entries after it would move its end
    }
    int end = (int) (at + count);
    if (!last && KeyOrder.compare(sorted.get(end - 1).name(), previous.get(k + 1).first()) >= 0) {
      return 0; // an entry it lacked came in, and one of the chunk's went
    }
    for (int i = at; i < end; i++) {
      if (dirty[i]) {
        return 0;
      }
    }
    return end - at;
  }

  /** An entry with its name's UTF-8 bytes, whose unsigned order is the manifest's order. */
  private record Keyed(byte[] name, TreeEntry entry) {}

  /**
   * The entries sorted by the UTF-8 bytes of their names, refused if two share a name. Compares the bytes rather
   * than the strings: unsigned byte arrays compare eight bytes at a time, and sorting a folder of a million entries
   * was a fifth of its status.
   */
  private static List<TreeEntry> sortedByName(List<TreeEntry> entries) {
    return sortedByName(entries, Set.of(), null);
  }

  /** As {@link #sortedByName(List)}, marking in {@code dirty} the places of the entries named in {@code changed}. */
  private static List<TreeEntry> sortedByName(List<TreeEntry> entries, Set<String> changed, boolean[] dirty) {
    Keyed[] keyed = new Keyed[entries.size()];
    for (int i = 0; i < keyed.length; i++) {
      TreeEntry entry = entries.get(i);
      keyed[i] = new Keyed(entry.name().getBytes(StandardCharsets.UTF_8), entry);
    }
    // In place, on all cores from 8192 entries.
    Arrays.parallelSort(keyed, (a, b) -> Arrays.compareUnsigned(a.name(), b.name()));
    List<TreeEntry> sorted = new ArrayList<>(keyed.length);
    for (int i = 0; i < keyed.length; i++) {
      if (i > 0 && Arrays.equals(keyed[i - 1].name(), keyed[i].name())) {
        throw new IllegalArgumentException("Invalid tree manifest: entry "
            + TreeEntry.printable(keyed[i].entry().name()) + " is duplicated or out of order");
      }
      sorted.add(keyed[i].entry());
    }
    // The few changed names found by their bytes: hashing a million names to look each up was a tenth of the build.
    for (String name : changed) {
      int at = Arrays.binarySearch(keyed, new Keyed(name.getBytes(StandardCharsets.UTF_8), null),
          (a, b) -> Arrays.compareUnsigned(a.name(), b.name()));
      if (at >= 0) {
        dirty[at] = true;
      }
    }
    return sorted;
  }

  /**
   * The folder whose top is {@code top}, with every chunk and index below it in {@code parts} (by digest): each is
   * checked against what its index declares (kind, height, first name, counts and totals, names before the next
   * chunk's), and the entries together must be unique and sorted. Objects missing from {@code parts} are refused.
   */
  public static Manifest assemble(ChunkIndex top, Map<Digest, TreeObject> parts) {
    List<TreeEntry> entries = new ArrayList<>();
    List<TreeObject> below = new ArrayList<>();
    collect(top, null, parts, entries, below);
    requireUniqueSorted(entries);
    return new Manifest(entries, top, below);
  }

  private static void collect(ChunkIndex index, String end, Map<Digest, TreeObject> parts, List<TreeEntry> entries,
      List<TreeObject> below) {
    for (int i = 0; i < index.chunks().size(); i++) {
      TreeObject child = parts.get(index.chunks().get(i).digest());
      if (child == null) {
        throw new IllegalArgumentException("Invalid chunk index: its chunk sha256:"
            + index.chunks().get(i).digest().hex() + " was not read");
      }
      String childEnd = index.endOf(i, end);
      index.requireChild(i, child, childEnd);
      if (child.isIndex()) {
        collect(child.index(), childEnd, parts, entries, below);
      } else {
        entries.addAll(child.leaf().entries());
      }
      below.add(child);
    }
  }

  /** Parses manifest bytes; the caller has verified them against their digest. */
  public static Manifest decode(byte[] data) {
    try (JsonParser parser = JSON.createParser(data)) {
      expect(parser.nextToken(), JsonToken.START_OBJECT);
      expectField(parser, "format");
      String format = parser.nextTextValue();
      if (!FORMAT.equals(format)) {
        throw new IllegalArgumentException("Invalid tree manifest format: " + TreeEntry.printable(format)
            + " (must be " + FORMAT + " or " + ChunkIndex.FORMAT + "; a newer Quarry wrote it?)");
      }
      expectField(parser, "entries");
      expect(parser.nextToken(), JsonToken.START_ARRAY);
      List<TreeEntry> entries = new ArrayList<>();
      while (parser.nextToken() == JsonToken.START_OBJECT) {
        entries.add(readEntry(parser));
      }
      expect(parser.currentToken(), JsonToken.END_ARRAY);
      expect(parser.nextToken(), JsonToken.END_OBJECT);
      if (parser.nextToken() != null) {
        throw new IllegalArgumentException("Invalid tree manifest: bytes follow its end");
      }
      requireUniqueSorted(entries);
      if (!Arrays.equals(encode(entries), data)) {
        throw new IllegalArgumentException("Invalid tree manifest: not canonical (spacing, escapes, field order or"
            + " fields a canonical writer would not write)");
      }
      return new Manifest(entries, data);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Invalid tree manifest: not JSON at byte "
          + e.getLocation().getByteOffset(), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("Invalid tree manifest: cannot parse it", e);
    }
  }

  public List<TreeEntry> entries() {
    build();
    return entries;
  }

  /**
   * A chunked folder's chunks, as its lowest index names them, when this manifest was built from entries (what a
   * later build of the same folder may take again: {@link #of(List, List, Set)}); empty otherwise.
   */
  public List<ChunkIndex.Chunk> chunks() {
    return chunks;
  }

  /** Whether the folder is stored as chunks under an index. */
  public boolean isChunked() {
    return index != null;
  }

  /** The object its digest names: the manifest itself, or its top index. */
  public TreeObject top() {
    return index != null ? TreeObject.of(index) : TreeObject.of(this);
  }

  /** Every object the folder is stored as, children first: its chunks and indexes, the top last. */
  public List<TreeObject> objects() {
    List<TreeObject> objects = new ArrayList<>(parts);
    objects.add(top());
    return objects;
  }

  /** The canonical bytes of its top object: what its digest names. */
  public byte[] encoded() {
    build();
    return encoded.clone();
  }

  public int encodedLength() {
    return index != null ? encoded.length : Math.toIntExact(digest.size());
  }

  public Digest digest() {
    return digest;
  }

  /** Regular files and symbolic links in this folder's whole subtree. */
  public long files() {
    return files;
  }

  /** Bytes of regular files in this folder's whole subtree. */
  public long bytes() {
    return bytes;
  }

  private static byte[] encode(List<TreeEntry> sorted) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + sorted.size() * 128);
    try (JsonGenerator json = JSON.createGenerator(out, JsonEncoding.UTF8)) {
      json.writeStartObject();
      json.writeStringField("format", FORMAT);
      json.writeArrayFieldStart("entries");
      for (TreeEntry entry : sorted) {
        json.writeStartObject();
        json.writeStringField("name", entry.name());
        json.writeStringField("type", entry.type().token());
        json.writeStringField("mode", octal4(entry.mode()));
        if (entry.type() == EntryType.SYMLINK) {
          json.writeStringField("target", entry.target());
        } else {
          json.writeStringField("sha256", entry.digest().hex());
          json.writeNumberField("size", entry.digest().size());
        }
        if (entry.isDirectory()) {
          json.writeNumberField("files", entry.files());
          json.writeNumberField("bytes", entry.bytes());
        }
        json.writeEndObject();
      }
      json.writeEndArray();
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot encode a tree manifest", e);
    }
    return out.toByteArray();
  }

  /** Mode bits (0 to 07777) as four octal digits; String.format would cost more than the rest of an entry. */
  private static String octal4(int mode) {
    return new String(new char[] {(char) ('0' + ((mode >> 9) & 7)), (char) ('0' + ((mode >> 6) & 7)),
        (char) ('0' + ((mode >> 3) & 7)), (char) ('0' + (mode & 7))});
  }

  private static TreeEntry readEntry(JsonParser parser) throws IOException {
    String name = null;
    String type = null;
    String mode = null;
    String target = null;
    String sha256 = null;
    long size = -1;
    long files = -1;
    long bytes = -1;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      JsonToken value = parser.nextToken();
      switch (field) {
        case "name" -> name = parser.getText();
        case "type" -> type = parser.getText();
        case "mode" -> mode = parser.getText();
        case "target" -> target = parser.getText();
        case "sha256" -> sha256 = parser.getText();
        case "size" -> size = number(parser, value, field);
        case "files" -> files = number(parser, value, field);
        case "bytes" -> bytes = number(parser, value, field);
        default -> throw new IllegalArgumentException("Invalid tree manifest: unknown field "
            + TreeEntry.printable(field));
      }
    }
    if (name == null || type == null || mode == null || !mode.matches("[0-7]{4}")) {
      throw new IllegalArgumentException("Invalid tree manifest entry " + TreeEntry.printable(name)
          + ": name, type and a four-digit octal mode are required");
    }
    int permissions = Integer.parseInt(mode, 8);
    return switch (EntryType.ofToken(type)) {
      case SYMLINK -> TreeEntry.symlink(name, target);
      case FILE -> TreeEntry.file(name, permissions, new Digest(sha256, size));
      case DIRECTORY -> {
        if (files < 0 || bytes < 0) {
          throw new IllegalArgumentException("Invalid tree manifest entry " + TreeEntry.printable(name)
              + ": a dir needs files and bytes");
        }
        yield TreeEntry.directory(name, permissions, new Digest(sha256, size), files, bytes);
      }
    };
  }

  private static long number(JsonParser parser, JsonToken value, String field) throws IOException {
    if (value != JsonToken.VALUE_NUMBER_INT) {
      throw new IllegalArgumentException("Invalid tree manifest: " + field + " must be an integer");
    }
    return parser.getLongValue();
  }

  private static void expect(JsonToken actual, JsonToken expected) {
    if (actual != expected) {
      throw new IllegalArgumentException("Invalid tree manifest: expected " + expected + ", found " + actual);
    }
  }

  private static void expectField(JsonParser parser, String name) throws IOException {
    if (parser.nextToken() != JsonToken.FIELD_NAME || !name.equals(parser.currentName())) {
      throw new IllegalArgumentException("Invalid tree manifest: expected field " + name);
    }
  }

  private static void requireUniqueSorted(List<TreeEntry> sorted) {
    for (int i = 1; i < sorted.size(); i++) {
      if (BY_NAME.compare(sorted.get(i - 1), sorted.get(i)) >= 0) {
        throw new IllegalArgumentException("Invalid tree manifest: entry " + TreeEntry.printable(sorted.get(i).name())
            + " is duplicated or out of order");
      }
    }
  }
}
