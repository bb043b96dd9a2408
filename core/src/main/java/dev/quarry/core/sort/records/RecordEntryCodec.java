package dev.quarry.core.sort.records;

import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.RawRange;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The compact binary form of a {@link RecordEntry} in runs and plans: varints, the key as UTF-8, each range as a
 * varint offset delta and length. Typically 20 to 30 bytes plus the key, before LZ4.
 */
public final class RecordEntryCodec {
  private static final int NO_CONTENT = 0;
  private static final int LONG_CONTENT = 1;
  private static final int DOUBLE_CONTENT = 2;
  private static final int STRING_CONTENT = 3;
  /** The longest key or content key: a member name or value is at most a header's bytes ({@link ArchiveLimits}). */
  static final int MAX_STRING_BYTES = ArchiveLimits.DEFAULT.maxHeaderBytes();

  private RecordEntryCodec() {}

  /** {@code entry} as text: its binary form in Base64, for a done marker. */
  public static String toText(RecordEntry entry) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      write(out, entry);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Base64.getEncoder().encodeToString(bytes.toByteArray());
  }

  /** The entry {@link #toText} wrote; refuses text that is not one. */
  public static RecordEntry ofText(String text) {
    try {
      return read(new DataInputStream(new ByteArrayInputStream(Base64.getDecoder().decode(text))));
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalStateException("Cannot read a record entry of a done marker (the scratch was changed; clean it"
          + " and sort again)");
    }
  }

  static void write(DataOutputStream out, RecordEntry entry) throws IOException {
    writeString(out, entry.key());
    writeVarLong(out, entry.shard());
    writeVarLong(out, entry.position());
    // One byte as before for segments below 64: whether packed, and the segment above it.
    writeVarLong(out, (long) entry.segment() << 1 | (entry.packed() ? 1 : 0));
    writeVarLong(out, entry.ranges().size());
    long previousEnd = 0;
    for (RawRange range : entry.ranges()) {
      writeVarLong(out, zigzag(range.offset() - previousEnd));
      writeVarLong(out, range.length());
      previousEnd = range.end();
    }
    switch (entry.contentKey()) {
      case null -> out.writeByte(NO_CONTENT);
      case Long value -> {
        out.writeByte(LONG_CONTENT);
        out.writeLong(value);
      }
      case Double value -> {
        out.writeByte(DOUBLE_CONTENT);
        out.writeDouble(value);
      }
      case String value -> {
        out.writeByte(STRING_CONTENT);
        writeString(out, value);
      }
      default -> throw new IllegalArgumentException("Invalid content key type: " + entry.contentKey().getClass());
    }
  }

  /**
   * The entry {@link #write} wrote. Runs are read back from scratch, which someone may have changed, so every count
   * and length is checked before it sizes anything: a corrupt or planted run fails in one line ({@link RunReader}
   * names it), never with an allocation of what its bytes claim.
   */
  static RecordEntry read(DataInputStream in) throws IOException {
    String key = readString(in);
    int shard = readInt(in, "input shard");
    int position = readInt(in, "position");
    long packedAndSegment = readVarLong(in);
    boolean packed = (packedAndSegment & 1) != 0;
    long segment = packedAndSegment >>> 1;
    if (segment > Integer.MAX_VALUE) {
      throw new IOException("a record entry names segment " + segment);
    }
    long count = readVarLong(in);
    if (count < 0 || count > RecordEntry.MAX_SIZE) {
      throw new IOException("a record entry has " + count + " byte ranges");
    }
    List<RawRange> ranges = new ArrayList<>((int) Math.min(count, 16));
    long size = 0;
    long previousEnd = 0;
    for (long i = 0; i < count; i++) {
      long offset = previousEnd + unzigzag(readVarLong(in));
      long length = readVarLong(in);
      if (offset < 0 || length <= 0 || length > RecordEntry.MAX_SIZE - size) {
        throw new IOException("a record entry has a byte range of offset " + offset + " and length "
            + length + " (a record holds at most " + RecordEntry.MAX_SIZE + " bytes)");
      }
      ranges.add(new RawRange(offset, length));
      size += length;
      previousEnd = offset + length;
    }
    Object content = switch (in.readByte()) {
      case NO_CONTENT -> null;
      case LONG_CONTENT -> in.readLong();
      case DOUBLE_CONTENT -> in.readDouble();
      case STRING_CONTENT -> readString(in);
      default -> throw new IOException("Cannot read record entry of " + key + ": unknown content key type");
    };
    return new RecordEntry(key, shard, position, packed, ranges, size, content, (int) segment);
  }

  private static int readInt(DataInputStream in, String what) throws IOException {
    long value = readVarLong(in);
    if (value < 0 || value > Integer.MAX_VALUE) {
      throw new IOException("a record entry names " + what + " " + value);
    }
    return (int) value;
  }

  private static void writeString(DataOutputStream out, String value) throws IOException {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    writeVarLong(out, bytes.length);
    out.write(bytes);
  }

  private static String readString(DataInputStream in) throws IOException {
    long length = readVarLong(in);
    if (length < 0 || length > MAX_STRING_BYTES) {
      throw new IOException("a record entry has a key of " + length + " bytes (at most " + MAX_STRING_BYTES + ")");
    }
    byte[] bytes = new byte[(int) length];
    in.readFully(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static void writeVarLong(DataOutputStream out, long value) throws IOException {
    long v = value;
    while ((v & ~0x7FL) != 0) {
      out.writeByte((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.writeByte((int) v);
  }

  static long readVarLong(DataInputStream in) throws IOException {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException();
      }
      value |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw new IOException("Cannot read a record entry: a varint is longer than 10 bytes (the run is corrupt)");
  }

  private static long zigzag(long v) {
    return (v << 1) ^ (v >> 63);
  }

  private static long unzigzag(long v) {
    return (v >>> 1) ^ -(v & 1);
  }
}
