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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
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
    List<TreeEntry> sorted = sortedByName(entries);
    if (!Chunking.isChunked(sorted.size())) {
      return new Manifest(sorted, encode(sorted));
    }
    List<Integer> ends = Chunking.cuts(sorted.stream().map(TreeEntry::name).toList());
    // Each chunk is encoded and hashed on its own, on all cores: a folder of a million entries has about a thousand.
    List<Manifest> chunks = IntStream.range(0, ends.size()).parallel().mapToObj(i -> {
      List<TreeEntry> slice = sorted.subList(i == 0 ? 0 : ends.get(i - 1), ends.get(i));
      return new Manifest(slice, encode(slice));
    }).toList();
    List<TreeObject> parts = new ArrayList<>();
    List<ChunkIndex.Chunk> level = new ArrayList<>();
    for (Manifest chunk : chunks) {
      parts.add(TreeObject.of(chunk));
      level.add(new ChunkIndex.Chunk(chunk.entries().getFirst().name(), chunk.digest(), chunk.entries().size(),
          chunk.files(), chunk.bytes()));
    }
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
    return new Manifest(sorted, ChunkIndex.of(height, level), parts);
  }

  /** An entry with its name's UTF-8 bytes, whose unsigned order is the manifest's order. */
  private record Keyed(byte[] name, TreeEntry entry) {}

  /**
   * The entries sorted by the UTF-8 bytes of their names, refused if two share a name. Compares the bytes rather
   * than the strings: unsigned byte arrays compare eight bytes at a time, and sorting a folder of a million entries
   * was a fifth of its status.
   */
  private static List<TreeEntry> sortedByName(List<TreeEntry> entries) {
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
