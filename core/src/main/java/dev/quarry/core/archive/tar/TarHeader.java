package dev.quarry.core.archive.tar;

import static dev.quarry.core.archive.tar.TarFormat.*;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.MemberNames;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** One 512-byte tar header block, parsed and checked. */
record TarHeader(byte[] rawName, byte type, long size, byte[] rawLinkName, boolean gnu) {

  /**
   * Parses {@code block}, found at {@code offset} of {@code shard}; refuses bad checksums and malformed numbers. Every
   * numeric field is checked, not only the size: Python's tarfile (so WebDataset) refuses a header with any of them
   * malformed, and a raw copy would carry it into the output.
   */
  static TarHeader parse(String shard, byte[] block, long offset) throws ArchiveException {
    long stored = parseNumber(shard, null, block, CHECKSUM, CHECKSUM_LEN, offset, "checksum");
    long unsigned = 0;
    long signed = 0;
    for (int i = 0; i < BLOCK; i++) {
      int b = (i >= CHECKSUM && i < CHECKSUM + CHECKSUM_LEN) ? ' ' : block[i];
      unsigned += b & 0xff;
      signed += b;
    }
    if (stored != unsigned && stored != signed) {
      throw ArchiveException.of(shard, "invalid tar header at offset " + offset + ": checksum " + stored
          + " does not match " + unsigned + " (the shard is corrupt or not a tar archive)");
    }
    boolean gnu = matches(block, MAGIC, "ustar  \0");
    boolean posix = matches(block, MAGIC, "ustar\0");
    byte[] name = field(block, NAME, NAME_LEN);
    if (posix && block[PREFIX] != 0) {
      byte[] prefix = field(block, PREFIX, PREFIX_LEN);
      byte[] joined = Arrays.copyOf(prefix, prefix.length + 1 + name.length);
      joined[prefix.length] = '/';
      System.arraycopy(name, 0, joined, prefix.length + 1, name.length);
      name = joined;
    }
    String member = displayName(name);
    parseNumber(shard, member, block, MODE, ID_LEN, offset, "mode");
    parseNumber(shard, member, block, UID, ID_LEN, offset, "uid");
    parseNumber(shard, member, block, GID, ID_LEN, offset, "gid");
    parseNumber(shard, member, block, MTIME, NUMBER_LEN, offset, "mtime");
    parseNumber(shard, member, block, DEVMAJOR, ID_LEN, offset, "devmajor");
    parseNumber(shard, member, block, DEVMINOR, ID_LEN, offset, "devminor");
    long size = parseNumber(shard, member, block, SIZE, NUMBER_LEN, offset, "size");
    return new TarHeader(name, block[TYPE], size, field(block, LINKNAME, NAME_LEN), gnu);
  }

  /** The header's own name for messages: as text when it is UTF-8, else in hex (the name rules refuse it later). */
  private static String displayName(byte[] name) {
    try {
      return MemberNames.decode("", name);
    } catch (ArchiveException e) {
      return "0x" + java.util.HexFormat.of().formatHex(name);
    }
  }

  /** The bytes of a NUL-terminated field. */
  static byte[] field(byte[] block, int offset, int length) {
    int end = offset;
    while (end < offset + length && block[end] != 0) {
      end++;
    }
    return Arrays.copyOfRange(block, offset, end);
  }

  /**
   * Whether the block at {@code offset} of {@code bytes} is a ustar header whose checksum holds: where reading may
   * start in a window cut from the middle of an archive. Data can hold such a block by chance or by design, so only
   * what cannot change any output may trust it (the sort's key sample).
   */
  static boolean isHeaderAt(byte[] bytes, int offset) {
    byte[] block = Arrays.copyOfRange(bytes, offset, offset + BLOCK);
    if (!matches(block, MAGIC, "ustar")) {
      return false;
    }
    try {
      parse("", block, offset);
      return true;
    } catch (ArchiveException e) {
      return false;
    }
  }

  private static boolean matches(byte[] block, int offset, String text) {
    byte[] expected = text.getBytes(StandardCharsets.US_ASCII);
    return Arrays.equals(block, offset, offset + expected.length, expected, 0, expected.length);
  }

  /**
   * A numeric field: octal digits with leading spaces and trailing NULs or spaces, or GNU base-256 (first byte with
   * the high bit set) for values beyond octal's range.
   */
  static long parseNumber(String shard, String member, byte[] block, int offset, int length, long headerOffset,
      String what) throws ArchiveException {
    if (block[offset] == (byte) 0xff) {
      if (what.equals("size") || what.equals("checksum")) {
        throw invalidNumber(shard, member, headerOffset, what, "a negative base-256 number");
      }
      return -1; // A time before 1970 or a negative id: Python reads it, and nothing here uses it.
    }
    // Only 0x80 starts a base-256 number, as for GNU tar and Python; other high bytes are not octal digits.
    if (block[offset] == (byte) 0x80) {
      long value = 0;
      for (int i = 1; i < length; i++) {
        if (value > (Long.MAX_VALUE >> 8)) {
          throw invalidNumber(shard, member, headerOffset, what, "a base-256 number beyond 2^63");
        }
        value = (value << 8) | (block[offset + i] & 0xff);
      }
      return value;
    }
    int i = offset;
    int end = offset + length;
    while (i < end && block[i] == ' ') {
      i++;
    }
    long value = 0;
    int digits = 0;
    for (; i < end && block[i] >= '0' && block[i] <= '7'; i++, digits++) {
      if (value > (Long.MAX_VALUE >> 3)) {
        throw invalidNumber(shard, member, headerOffset, what, "an octal number beyond 2^63");
      }
      value = (value << 3) | (block[i] - '0');
    }
    for (; i < end; i++) {
      if (block[i] != 0 && block[i] != ' ') {
        throw invalidNumber(shard, member, headerOffset, what, "a non-octal character");
      }
    }
    if (digits == 0 && !what.equals("checksum")) {
      return 0;
    }
    return value;
  }

  /** Names the member when the header's checksum held, so its name can be trusted that far. */
  private static ArchiveException invalidNumber(String shard, String member, long offset, String what,
      String problem) {
    String reason = "invalid tar header at offset " + offset + ": its " + what + " field holds " + problem
        + " (the shard is corrupt)";
    return member == null ? ArchiveException.of(shard, reason) : ArchiveException.ofMember(shard, member, reason);
  }
}
