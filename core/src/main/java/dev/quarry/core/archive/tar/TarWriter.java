package dev.quarry.core.archive.tar;

import static dev.quarry.core.archive.tar.TarFormat.*;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardWriter;
import dev.quarry.core.archive.SpooledMember;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a POSIX tar whose bytes depend only on the members: every member gets the same fixed metadata (mode 0444,
 * owner quarry, mtime 0). A name longer than the 100 bytes of the ustar name field, or not ASCII, and a size beyond
 * octal's 8 GiB, go into a PAX extended header. Names are never split into ustar's prefix field, because WebDataset's
 * wids reader reads only the name field.
 */
public final class TarWriter implements ShardWriter {
  static final String OWNER = "quarry";
  static final int FILE_MODE = 0444;

  private final OutputStream out;
  private long bytes;
  private long records;
  private boolean finished;

  public TarWriter(OutputStream out) {
    this.out = out;
  }

  @Override
  public void write(Record record) throws IOException {
    for (Member member : record.members()) {
      writeMember(member.name(), member.data());
    }
    records++;
  }

  @Override
  public void write(String key, List<SpooledMember> members) throws IOException {
    for (SpooledMember member : members) {
      try (InputStream data = member.open()) {
        writeMember(member.name(), member.size(), data);
      }
    }
    records++;
  }

  /** Appends one member whose data is in memory. */
  public void writeMember(String name, byte[] data) throws IOException {
    writeHeaders(name, data.length);
    write(data, data.length);
    pad(data.length);
  }

  /** Appends one member of {@code size} bytes streamed from {@code data}. */
  public void writeMember(String name, long size, InputStream data) throws IOException {
    writeHeaders(name, size);
    long copied = data.transferTo(new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        TarWriter.this.write(new byte[] {(byte) b}, 1);
      }

      @Override
      public void write(byte[] buffer, int offset, int length) throws IOException {
        out.write(buffer, offset, length);
        bytes += length;
      }
    });
    if (copied != size) {
      throw new IOException("Cannot write member " + name + ": its data had " + copied + " bytes, not " + size);
    }
    pad(size);
  }

  /**
   * Appends a member's raw bytes (headers, data, padding) copied from another tar, counting {@code records} records.
   * The caller guarantees they came from a {@link dev.quarry.core.archive.RawRange}.
   */
  public void writeRaw(byte[] raw, int offset, int length) throws IOException {
    if (length % BLOCK != 0) {
      throw new IllegalArgumentException("Invalid raw tar bytes: " + length + " (must be whole 512-byte blocks)");
    }
    out.write(raw, offset, length);
    bytes += length;
  }

  /** Counts a record whose members were appended raw. */
  public void countRecord() {
    records++;
  }

  private void writeHeaders(String name, long size) throws IOException {
    byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
    boolean longName = nameBytes.length > NAME_LEN || !isAscii(nameBytes);
    boolean bigSize = size > MAX_OCTAL_SIZE;
    if (longName || bigSize) {
      Map<String, String> records = new LinkedHashMap<>();
      if (longName) {
        records.put("path", name);
      }
      if (bigSize) {
        records.put("size", Long.toString(size));
      }
      byte[] pax = PaxRecords.encode(records);
      out.write(header(paxHeaderName(name), pax.length, PAX_LOCAL));
      bytes += BLOCK;
      write(pax, pax.length);
      pad(pax.length);
    }
    out.write(header(longName ? fallbackName(name) : nameBytes, bigSize ? 0 : size, REGULAR));
    bytes += BLOCK;
  }

  private static byte[] header(byte[] name, long size, byte type) {
    byte[] block = new byte[BLOCK];
    System.arraycopy(name, 0, block, NAME, Math.min(name.length, NAME_LEN));
    octal(block, MODE, ID_LEN, FILE_MODE);
    octal(block, UID, ID_LEN, 0);
    octal(block, GID, ID_LEN, 0);
    octal(block, SIZE, NUMBER_LEN, size);
    octal(block, MTIME, NUMBER_LEN, 0);
    block[TYPE] = type;
    ascii(block, MAGIC, "ustar\0");
    ascii(block, VERSION, "00");
    ascii(block, UNAME, OWNER);
    ascii(block, GNAME, OWNER);
    octal(block, DEVMAJOR, ID_LEN, 0);
    octal(block, DEVMINOR, ID_LEN, 0);
    Arrays.fill(block, CHECKSUM, CHECKSUM + CHECKSUM_LEN, (byte) ' ');
    long sum = 0;
    for (byte b : block) {
      sum += b & 0xff;
    }
    String checksum = String.format("%06o", sum);
    ascii(block, CHECKSUM, checksum + "\0 ");
    return block;
  }

  /** {@code value} as zero-padded octal filling the field but its last byte, which stays NUL. */
  private static void octal(byte[] block, int offset, int length, long value) {
    String digits = Long.toOctalString(value);
    String padded = "0".repeat(length - 1 - digits.length()) + digits;
    ascii(block, offset, padded);
  }

  private static void ascii(byte[] block, int offset, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(bytes, 0, block, offset, bytes.length);
  }

  /** The PAX header's own name, as GNU tar makes it: {@code PaxHeaders/<base name>}, ASCII, at most 100 bytes. */
  private static byte[] paxHeaderName(String name) {
    String base = name.substring(name.lastIndexOf('/') + 1);
    return truncatedAscii("PaxHeaders/" + base);
  }

  /** What the ustar name field holds when the real name is in a PAX header: an ASCII approximation. */
  private static byte[] fallbackName(String name) {
    return truncatedAscii(name);
  }

  private static byte[] truncatedAscii(String text) {
    StringBuilder ascii = new StringBuilder();
    text.codePoints().forEach(c -> ascii.append(c >= 0x20 && c < 0x7f ? (char) c : '_'));
    byte[] bytes = ascii.toString().getBytes(StandardCharsets.US_ASCII);
    return bytes.length <= NAME_LEN ? bytes : Arrays.copyOf(bytes, NAME_LEN);
  }

  private static boolean isAscii(byte[] bytes) {
    for (byte b : bytes) {
      if (b < 0x20 || b == 0x7f) {
        return false;
      }
    }
    return true;
  }

  private void write(byte[] data, int length) throws IOException {
    out.write(data, 0, length);
    bytes += length;
  }

  private void pad(long size) throws IOException {
    int padding = (int) (padded(size) - size);
    if (padding > 0) {
      out.write(new byte[padding]);
      bytes += padding;
    }
  }

  @Override
  public long records() {
    return records;
  }

  @Override
  public long bytesWritten() {
    return bytes;
  }

  /** Writes the end-of-archive blocks and closes the stream. */
  @Override
  public void close() throws IOException {
    if (!finished) {
      finished = true;
      out.write(END_OF_ARCHIVE);
      bytes += END_OF_ARCHIVE.length;
    }
    out.close();
  }
}
