package dev.quarry.core.archive.zip;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.MemberNames;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Checks the central directory at the end of a zip read as a stream. Only there does a zip record an entry's file
 * type, so this is where symbolic links are found; and it must list the very entries the stream held, in order, or
 * readers that go by the directory (unzip, Python) would see another archive than Quarry does.
 */
final class CentralDirectory {
  private static final int END_SIGNATURE = 0x06054b50;
  private static final int END_LENGTH = 22;
  private static final int ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
  private static final int ZIP64_LOCATOR_LENGTH = 20;
  private static final int ZIP64_END_SIGNATURE = 0x06064b50;
  private static final int ZIP64_END_LENGTH = 56;
  private static final int ENTRY_SIGNATURE = 0x02014b50;
  private static final int ENTRY_LENGTH = 46;
  private static final int PLATFORM_UNIX = 3;
  private static final int FILE_TYPE_MASK = 0170000;
  private static final int SYMLINK_TYPE = 0120000;

  private CentralDirectory() {}

  /**
   * Checks the directory found in {@code tail}: the bytes read from shortly before the directory to the end of the
   * stream, or null if there were too many to keep. {@code localNames} are the raw names the stream's entries had.
   */
  static void check(String shard, byte[] tail, List<byte[]> localNames) throws ArchiveException {
    if (tail == null) {
      throw ArchiveException.of(shard, "its central directory is larger than " + (ZipSource.MAX_KEPT >> 20)
          + " MiB, more than Quarry checks while streaming (split the shard)");
    }
    int end = findEndRecord(tail);
    if (end < 0) {
      throw ArchiveException.of(shard, "truncated: the stream ends before the zip's central directory (after "
          + localNames.size() + " entries)");
    }
    long size = u32(tail, end + 12);
    long entries = u16(tail, end + 10);
    int directoryEnd = end;
    int locator = end - ZIP64_LOCATOR_LENGTH;
    if (locator >= 0 && u32(tail, locator) == ZIP64_LOCATOR_SIGNATURE) {
      int zip64End = findZip64EndRecord(tail, locator);
      if (zip64End < 0) {
        throw corrupt(shard, "its zip64 end record is missing");
      }
      entries = u64(tail, zip64End + 32);
      size = u64(tail, zip64End + 40);
      directoryEnd = zip64End;
    }
    if (size < 0 || size > directoryEnd) {
      throw corrupt(shard, "its central directory of " + size + " bytes does not fit before its end record");
    }
    int count = checkEntries(shard, tail, (int) (directoryEnd - size), directoryEnd, localNames);
    if (count != entries || count != localNames.size()) {
      throw corrupt(shard, "its central directory lists " + count + " entries (its end record says " + entries
          + "), but the stream holds " + localNames.size());
    }
  }

  /** The entries' count; refuses symbolic links and names that differ from the stream's. */
  private static int checkEntries(String shard, byte[] tail, int from, int to, List<byte[]> localNames)
      throws ArchiveException {
    int count = 0;
    int at = from;
    while (at < to) {
      if (at + ENTRY_LENGTH > to || u32(tail, at) != ENTRY_SIGNATURE) {
        throw corrupt(shard, "its central directory entry " + count + " is malformed");
      }
      int versionMadeBy = u16(tail, at + 4);
      int nameLength = u16(tail, at + 28);
      int recordLength = ENTRY_LENGTH + nameLength + u16(tail, at + 30) + u16(tail, at + 32);
      if (at + recordLength > to) {
        throw corrupt(shard, "its central directory entry " + count + " runs past the directory's end");
      }
      byte[] name = Arrays.copyOfRange(tail, at + ENTRY_LENGTH, at + ENTRY_LENGTH + nameLength);
      long unixMode = u32(tail, at + 38) >>> 16;
      if (versionMadeBy >> 8 == PLATFORM_UNIX && (unixMode & FILE_TYPE_MASK) == SYMLINK_TYPE) {
        throw ArchiveException.ofMember(shard, MemberNames.checked(shard, MemberNames.decode(shard, name)),
            "it is a symbolic link (shards may hold only regular files and directories; store the file itself "
                + "instead)");
      }
      if (count < localNames.size() && !Arrays.equals(name, localNames.get(count))) {
        throw corrupt(shard, "its central directory names entry " + count + " " + shown(name)
            + ", but the stream holds " + shown(localNames.get(count)) + " there");
      }
      count++;
      at += recordLength;
    }
    return count;
  }

  /** The last end-of-central-directory record whose comment fits in what was read. */
  private static int findEndRecord(byte[] tail) {
    for (int at = tail.length - END_LENGTH; at >= 0; at--) {
      if (u32(tail, at) == END_SIGNATURE && at + END_LENGTH + u16(tail, at + 20) <= tail.length) {
        return at;
      }
    }
    return -1;
  }

  /** The zip64 end record that ends right before the locator: 56 bytes, or more with extensible data. */
  private static int findZip64EndRecord(byte[] tail, int locator) {
    for (int at = locator - ZIP64_END_LENGTH; at >= 0 && locator - at <= ZipSource.LOOKBEHIND; at--) {
      if (u32(tail, at) == ZIP64_END_SIGNATURE && at + 12 + u64(tail, at + 4) == locator) {
        return at;
      }
    }
    return -1;
  }

  private static ArchiveException corrupt(String shard, String reason) {
    return ArchiveException.of(shard, reason + " (the zip is corrupt or inconsistent; rewrite it with zip)");
  }

  private static String shown(byte[] name) {
    return "'" + new String(name, StandardCharsets.UTF_8) + "'";
  }

  private static int u16(byte[] bytes, int at) {
    return (bytes[at] & 0xff) | (bytes[at + 1] & 0xff) << 8;
  }

  private static long u32(byte[] bytes, int at) {
    return u16(bytes, at) | (long) u16(bytes, at + 2) << 16;
  }

  /** Negative when the value does not fit a long, which callers treat as out of range. */
  private static long u64(byte[] bytes, int at) {
    return u32(bytes, at) | u32(bytes, at + 4) << 32;
  }
}
