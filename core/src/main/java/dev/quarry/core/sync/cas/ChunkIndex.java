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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The index of a large folder (docs/formats.md, "Chunked folders"): its chunks in name order, each by its first name,
 * digest, entry count and totals. At height 1 the chunks are {@code quarry-tree/1} manifests of consecutive entries;
 * at height h they are indexes of height h - 1. Decoding refuses what a canonical writer would not write, chunk first
 * names out of order, counts out of bounds and totals that overflow; {@link #requireChild} checks each chunk against
 * what the index declares for it when it is read.
 */
public final class ChunkIndex {
  public static final String FORMAT = "quarry-tree-index/1";
  /** The tallest index: 4096^4 entries, more than any folder holds. */
  public static final int MAX_HEIGHT = 4;
  private static final JsonFactory JSON =
      JsonFactory.builder().disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION).build();

  /** One chunk: the name of its first entry, its digest, and the entries, files and bytes it holds. */
  public record Chunk(String first, Digest digest, long entries, long files, long bytes) {}

  private final int height;
  private final List<Chunk> chunks;
  private final byte[] encoded;
  private final Digest digest;
  private final long entries;
  private final long files;
  private final long bytes;

  private ChunkIndex(int height, List<Chunk> chunks, byte[] encoded) {
    this.height = height;
    this.chunks = List.copyOf(chunks);
    this.encoded = encoded;
    this.digest = Digest.of(encoded);
    long[] totals = new long[3];
    for (Chunk chunk : chunks) {
      try {
        totals[0] = Math.addExact(totals[0], chunk.entries());
        totals[1] = Math.addExact(totals[1], chunk.files());
        totals[2] = Math.addExact(totals[2], chunk.bytes());
      } catch (ArithmeticException e) {
        throw new IllegalArgumentException("Invalid chunk index: its totals overflow");
      }
    }
    this.entries = totals[0];
    this.files = totals[1];
    this.bytes = totals[2];
  }

  static ChunkIndex of(int height, List<Chunk> chunks) {
    requireValid(height, chunks);
    return new ChunkIndex(height, chunks, encode(height, chunks));
  }

  /** Whether these bytes claim to be an index (they start as a canonical one does). */
  static boolean claims(byte[] data) {
    byte[] start = ("{\"format\":\"" + FORMAT + "\"").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    return data.length >= start.length && Arrays.equals(data, 0, start.length, start, 0, start.length);
  }

  /** Parses index bytes; the caller has verified them against their digest. */
  public static ChunkIndex decode(byte[] data) {
    try (JsonParser parser = JSON.createParser(data)) {
      expect(parser.nextToken(), JsonToken.START_OBJECT);
      expectField(parser, "format");
      if (!FORMAT.equals(parser.nextTextValue())) {
        throw new IllegalArgumentException("Invalid chunk index: its format is not " + FORMAT);
      }
      expectField(parser, "height");
      int height = (int) Math.min(Integer.MAX_VALUE, number(parser, parser.nextToken(), "height"));
      expectField(parser, "chunks");
      expect(parser.nextToken(), JsonToken.START_ARRAY);
      List<Chunk> chunks = new ArrayList<>();
      while (parser.nextToken() == JsonToken.START_OBJECT) {
        if (chunks.size() == Chunking.MAX_ITEMS) {
          throw new IllegalArgumentException("Invalid chunk index: more than " + Chunking.MAX_ITEMS + " chunks");
        }
        chunks.add(readChunk(parser));
      }
      expect(parser.currentToken(), JsonToken.END_ARRAY);
      expect(parser.nextToken(), JsonToken.END_OBJECT);
      if (parser.nextToken() != null) {
        throw new IllegalArgumentException("Invalid chunk index: bytes follow its end");
      }
      requireValid(height, chunks);
      if (!Arrays.equals(encode(height, chunks), data)) {
        throw new IllegalArgumentException("Invalid chunk index: not canonical (spacing, escapes, field order or"
            + " fields a canonical writer would not write)");
      }
      return new ChunkIndex(height, chunks, data);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Invalid chunk index: not JSON at byte " + e.getLocation().getByteOffset(),
          e);
    } catch (IOException e) {
      throw new IllegalArgumentException("Invalid chunk index: cannot parse it", e);
    }
  }

  public int height() {
    return height;
  }

  public List<Chunk> chunks() {
    return chunks;
  }

  public byte[] encoded() {
    return encoded.clone();
  }

  public int encodedLength() {
    return encoded.length;
  }

  public Digest digest() {
    return digest;
  }

  /** Entries of the folder in all its chunks. */
  public long entries() {
    return entries;
  }

  public long files() {
    return files;
  }

  public long bytes() {
    return bytes;
  }

  /** The first name of chunk {@code i + 1}, or {@code bound} (null: none) after the last chunk. */
  public String endOf(int i, String bound) {
    return i + 1 < chunks.size() ? chunks.get(i + 1).first() : bound;
  }

  /** The chunk whose range holds {@code name}: the last whose first name is not after it; -1 before the first. */
  public int chunkOf(String name) {
    int low = 0;
    int high = chunks.size() - 1;
    int found = -1;
    while (low <= high) {
      int middle = (low + high) >>> 1;
      if (KeyOrder.compare(chunks.get(middle).first(), name) <= 0) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found;
  }

  /**
   * Refuses chunk {@code i} when it is not what this index declares: a manifest at height 1 or an index one lower
   * otherwise, with the declared first name, entries, files and bytes, and (for a manifest) every name before
   * {@code end}, the next chunk's first name (null: no bound).
   */
  public void requireChild(int i, TreeObject child, String end) {
    Chunk chunk = chunks.get(i);
    String what = "Invalid chunk index " + digest.text() + ": chunk " + i + " (sha256:" + chunk.digest().hex() + ") ";
    String first;
    long[] held;
    if (height == 1) {
      Manifest leaf = child.leaf();
      if (leaf == null || leaf.entries().isEmpty()) {
        throw new IllegalArgumentException(what + "must be a manifest of entries");
      }
      first = leaf.entries().getFirst().name();
      String last = leaf.entries().getLast().name();
      if (end != null && KeyOrder.compare(last, end) >= 0) {
        throw new IllegalArgumentException(what + "overlaps the next chunk: its entry " + TreeEntry.printable(last)
            + " is not before " + TreeEntry.printable(end));
      }
      held = new long[] {leaf.entries().size(), leaf.files(), leaf.bytes()};
    } else {
      ChunkIndex index = child.index();
      if (index == null || index.height() != height - 1) {
        throw new IllegalArgumentException(what + "must be a chunk index of height " + (height - 1));
      }
      first = index.chunks().getFirst().first();
      held = new long[] {index.entries(), index.files(), index.bytes()};
    }
    if (!first.equals(chunk.first())) {
      throw new IllegalArgumentException(what + "starts at " + TreeEntry.printable(first) + ", not at "
          + TreeEntry.printable(chunk.first()) + " as the index declares");
    }
    if (held[0] != chunk.entries() || held[1] != chunk.files() || held[2] != chunk.bytes()) {
      throw new IllegalArgumentException(what + "holds " + held[0] + " entries, " + held[1] + " files and " + held[2]
          + " bytes, but the index declares " + chunk.entries() + ", " + chunk.files() + " and " + chunk.bytes());
    }
  }

  private static void requireValid(int height, List<Chunk> chunks) {
    if (height < 1 || height > MAX_HEIGHT) {
      throw new IllegalArgumentException("Invalid chunk index: height " + height + " (must be 1 to " + MAX_HEIGHT
          + ")");
    }
    if (chunks.isEmpty()) {
      throw new IllegalArgumentException("Invalid chunk index: it lists no chunks");
    }
    for (int i = 0; i < chunks.size(); i++) {
      Chunk chunk = chunks.get(i);
      TreeEntry.requireValidName(chunk.first());
      if (i > 0 && KeyOrder.compare(chunks.get(i - 1).first(), chunk.first()) >= 0) {
        throw new IllegalArgumentException("Invalid chunk index: chunk " + i + " starts at "
            + TreeEntry.printable(chunk.first()) + ", not after the chunk before it");
      }
      if (chunk.entries() < 1 || (height == 1 && chunk.entries() > Chunking.MAX_ITEMS)) {
        throw new IllegalArgumentException("Invalid chunk index: chunk " + i + " declares " + chunk.entries()
            + " entries (must be 1 to " + Chunking.MAX_ITEMS + " in a chunk of entries, at least 1 in an index)");
      }
      if (chunk.files() < 0 || chunk.bytes() < 0) {
        throw new IllegalArgumentException("Invalid chunk index: chunk " + i + " declares negative totals");
      }
    }
  }

  private static byte[] encode(int height, List<Chunk> chunks) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + chunks.size() * 160);
    try (JsonGenerator json = JSON.createGenerator(out, JsonEncoding.UTF8)) {
      json.writeStartObject();
      json.writeStringField("format", FORMAT);
      json.writeNumberField("height", height);
      json.writeArrayFieldStart("chunks");
      for (Chunk chunk : chunks) {
        json.writeStartObject();
        json.writeStringField("first", chunk.first());
        json.writeStringField("sha256", chunk.digest().hex());
        json.writeNumberField("size", chunk.digest().size());
        json.writeNumberField("entries", chunk.entries());
        json.writeNumberField("files", chunk.files());
        json.writeNumberField("bytes", chunk.bytes());
        json.writeEndObject();
      }
      json.writeEndArray();
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot encode a chunk index", e);
    }
    return out.toByteArray();
  }

  private static Chunk readChunk(JsonParser parser) throws IOException {
    String first = null;
    String sha256 = null;
    long[] numbers = {-1, -1, -1, -1};
    List<String> numeric = List.of("size", "entries", "files", "bytes");
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      JsonToken value = parser.nextToken();
      switch (field) {
        case "first" -> first = parser.getText();
        case "sha256" -> sha256 = parser.getText();
        case "size", "entries", "files", "bytes" -> numbers[numeric.indexOf(field)] = number(parser, value, field);
        default -> throw new IllegalArgumentException("Invalid chunk index: unknown field "
            + TreeEntry.printable(field));
      }
    }
    if (first == null || sha256 == null || Arrays.stream(numbers).anyMatch(n -> n < 0)) {
      throw new IllegalArgumentException("Invalid chunk index: a chunk needs first, sha256, size, entries, files and"
          + " bytes");
    }
    return new Chunk(first, new Digest(sha256, numbers[0]), numbers[1], numbers[2], numbers[3]);
  }

  private static long number(JsonParser parser, JsonToken value, String field) throws IOException {
    if (value != JsonToken.VALUE_NUMBER_INT) {
      throw new IllegalArgumentException("Invalid chunk index: " + field + " must be an integer");
    }
    return parser.getLongValue();
  }

  private static void expect(JsonToken actual, JsonToken expected) {
    if (actual != expected) {
      throw new IllegalArgumentException("Invalid chunk index: expected " + expected + ", found " + actual);
    }
  }

  private static void expectField(JsonParser parser, String name) throws IOException {
    if (parser.nextToken() != JsonToken.FIELD_NAME || !name.equals(parser.currentName())) {
      throw new IllegalArgumentException("Invalid chunk index: expected field " + name);
    }
  }
}
