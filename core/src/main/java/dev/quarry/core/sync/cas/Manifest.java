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
import java.util.Comparator;
import java.util.List;

/**
 * A directory's canonical manifest (docs/formats.md, "Tree manifests"): its entries sorted by the UTF-8 bytes of
 * their names, written as compact JSON in a fixed field order, so equal folders have byte-identical manifests and
 * therefore equal digests. Decoding refuses anything a canonical writer would not produce: names with '/', ".",
 * "..", duplicates, unsorted entries, but also extra fields, spacing or any other byte a re-encoding would not give
 * back. Its messages never quote the bytes (a remote's content stays out of logs): a malformed manifest is named by
 * the byte offset where it stops being JSON.
 */
public final class Manifest {
  public static final String FORMAT = "quarry-tree/1";
  /** The largest manifest written or read: about a million entries; a folder with more cannot be versioned. */
  public static final int MAX_BYTES = 256 << 20;
  private static final Comparator<TreeEntry> BY_NAME = Comparator.comparing(TreeEntry::name, KeyOrder.UTF8_BINARY);
  private static final JsonFactory JSON =
      JsonFactory.builder().disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION).build();

  private final List<TreeEntry> entries;
  private final byte[] encoded;
  private final Digest digest;
  private final long files;
  private final long bytes;

  private Manifest(List<TreeEntry> sortedEntries, byte[] encoded) {
    this.entries = List.copyOf(sortedEntries);
    this.encoded = encoded;
    this.digest = Digest.of(encoded);
    this.files = sortedEntries.stream().mapToLong(TreeEntry::files).sum();
    this.bytes = sortedEntries.stream().mapToLong(TreeEntry::bytes).sum();
  }

  /** The manifest of a folder with these entries, in any order. */
  public static Manifest of(List<TreeEntry> entries) {
    List<TreeEntry> sorted = new ArrayList<>(entries);
    sorted.sort(BY_NAME);
    requireUniqueSorted(sorted);
    byte[] encoded = encode(sorted);
    if (encoded.length > MAX_BYTES) {
      throw new IllegalArgumentException("Cannot version a folder of " + sorted.size() + " entries: its manifest"
          + " would be " + encoded.length + " bytes, more than a manifest may be (256 MiB); split the folder");
    }
    return new Manifest(sorted, encoded);
  }

  /** Parses manifest bytes; the caller has verified them against their digest. */
  public static Manifest decode(byte[] data) {
    try (JsonParser parser = JSON.createParser(data)) {
      expect(parser.nextToken(), JsonToken.START_OBJECT);
      expectField(parser, "format");
      String format = parser.nextTextValue();
      if (!FORMAT.equals(format)) {
        throw new IllegalArgumentException("Invalid tree manifest format: " + TreeEntry.printable(format)
            + " (must be " + FORMAT
            + "; a newer Quarry wrote it?)");
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
    return entries;
  }

  /** The canonical bytes: what is stored and hashed. */
  public byte[] encoded() {
    return encoded.clone();
  }

  public int encodedLength() {
    return encoded.length;
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
