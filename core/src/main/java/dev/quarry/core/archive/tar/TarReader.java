package dev.quarry.core.archive.tar;

import static dev.quarry.core.archive.tar.TarFormat.*;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.MemberNames;
import dev.quarry.core.archive.RawRange;
import dev.quarry.core.archive.ShardReader;
import dev.quarry.core.archive.StreamMember;
import dev.quarry.core.units.ByteSize;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;

/**
 * Streams the members of a tar archive: ustar, GNU (long names and links, base-256 sizes) and PAX (local and global
 * extended headers: path, size, and the rest validated). Each regular member comes with its raw byte range, extended
 * headers included. Directories are passed over; links, devices, FIFOs and sparse files are refused by name.
 */
public final class TarReader implements ShardReader {
  private final CountingInput in;
  private final String shard;
  private final ArchiveLimits limits;
  private final Map<String, String> globalPax = new HashMap<>();
  private final byte[] block = new byte[BLOCK];
  private Member current;
  private long directories;
  private boolean ended;

  public TarReader(InputStream in, String shard, ArchiveLimits limits) {
    this.in = new CountingInput(in);
    this.shard = shard;
    this.limits = limits;
  }

  /**
   * Whether {@code block} (512 bytes) is a ustar header whose checksum holds: where to start reading a stream cut from
   * the middle of an archive. Data can hold a block that looks like a header by chance or by design, so only what
   * cannot change any output may trust it.
   */
  public static boolean isHeader(byte[] block) {
    return block.length == BLOCK && TarHeader.isHeaderAt(block, 0);
  }

  @Override
  public ArchiveMember next() throws IOException {
    if (ended) {
      return null;
    }
    if (current != null) {
      current.pass();
      current = null;
    }
    long start = in.position();
    Map<String, String> pax = new HashMap<>(globalPax);
    String longName = null;
    while (true) {
      long headerOffset = in.position();
      if (!readHeader(headerOffset) || isZero(block)) {
        // The first of the two end blocks is enough. Reading on to the end lets a decompressor check its trailer
        // (the gzip CRC, the lz4 content checksum), so corrupt data is never taken for a good shard.
        ended = true;
        drain();
        return null;
      }
      TarHeader header = TarHeader.parse(shard, block, headerOffset);
      switch (header.type()) {
        case PAX_LOCAL -> pax.putAll(PaxRecords.parse(shard, readExtension(header, headerOffset), headerOffset));
        case PAX_GLOBAL -> {
          Map<String, String> global = PaxRecords.parse(shard, readExtension(header, headerOffset), headerOffset);
          globalPax.putAll(global);
          pax.putAll(global);
          start = in.position(); // A global header belongs to no member.
        }
        case GNU_LONG_NAME -> longName = MemberNames.decode(shard, trimNul(readExtension(header, headerOffset)));
        case GNU_LONG_LINK -> readExtension(header, headerOffset); // Only links use it, and links are refused.
        default -> {
          if (header.type() == DIRECTORY) {
            // Directories carry no data and are never written out, so their names need no checks.
            directories++;
            skipData("a directory", effectiveSize(header, pax, "a directory"));
            start = in.position();
            pax = new HashMap<>(globalPax);
            longName = null;
            continue;
          }
          String name = effectiveName(header, pax, longName);
          long size = effectiveSize(header, pax, name);
          refuseNonRegular(header.type(), name, pax);
          current = new Member(name, size, start, in.position());
          return current;
        }
      }
    }
  }

  private void drain() throws IOException {
    byte[] buffer = new byte[1 << 16];
    while (in.read(buffer, 0, buffer.length) >= 0) {
      // Trailing padding and bytes after the end of the archive carry nothing.
    }
  }

  private boolean readHeader(long offset) throws IOException {
    try {
      return in.readBlock(block);
    } catch (EOFException e) {
      throw ArchiveException.of(shard, "truncated: the stream ends inside the header block at offset " + offset);
    }
  }

  private byte[] readExtension(TarHeader header, long offset) throws IOException {
    if (header.size() > limits.maxHeaderBytes()) {
      throw ArchiveException.of(shard, "the extended header at offset " + offset + " is " + header.size()
          + " bytes, more than the " + limits.maxHeaderBytes() + " allowed (the shard is corrupt or hostile)");
    }
    byte[] data = new byte[(int) header.size()];
    try {
      if (data.length > 0 && !in.readBlock(data)) {
        throw new EOFException();
      }
      in.skipFully(padded(data.length) - data.length);
    } catch (EOFException e) {
      throw ArchiveException.of(shard, "truncated: the stream ends inside the extended header at offset " + offset);
    }
    return data;
  }

  private String effectiveName(TarHeader header, Map<String, String> pax, String longName) throws ArchiveException {
    String name;
    if (pax.containsKey("GNU.sparse.name")) {
      name = pax.get("GNU.sparse.name"); // PAX sparse files hide the real name there; errors should show it.
    } else if (pax.containsKey("path")) {
      name = pax.get("path");
    } else if (longName != null) {
      name = longName;
    } else {
      name = MemberNames.decode(shard, header.rawName());
    }
    return MemberNames.checked(shard, name);
  }

  /**
   * The member's size, from PAX or the header; a size beyond what a shard may expand to is refused here, before any
   * offset arithmetic could overflow on it.
   */
  private long effectiveSize(TarHeader header, Map<String, String> pax, String name) throws ArchiveException {
    String text = pax.get("size");
    long size = header.size();
    if (text != null) {
      try {
        size = Long.parseLong(text);
        if (size < 0) {
          throw new NumberFormatException();
        }
      } catch (NumberFormatException e) {
        throw ArchiveException.ofMember(shard, name, "its PAX size is not a byte count");
      }
    }
    if (size > limits.maxUncompressedBytes()) {
      throw ArchiveException.ofMember(shard, name, "its size " + size + " bytes is more than any shard may hold ("
          + ByteSize.format(limits.maxUncompressedBytes()) + ")");
    }
    return size;
  }

  private void refuseNonRegular(byte type, String name, Map<String, String> pax) throws ArchiveException {
    String refused = switch (type) {
      case REGULAR, REGULAR_OLD, CONTIGUOUS -> null;
      case HARD_LINK -> "it is a hard link";
      case SYMLINK -> "it is a symbolic link";
      case CHAR_DEVICE, BLOCK_DEVICE -> "it is a device";
      case FIFO -> "it is a FIFO";
      case GNU_SPARSE -> "it is a GNU sparse file";
      default -> "its tar type '" + (char) type + "' is not a regular file";
    };
    if (refused == null && pax.keySet().stream().anyMatch(key -> key.startsWith("GNU.sparse."))) {
      refused = "it is a PAX sparse file";
    }
    if (refused != null) {
      throw ArchiveException.ofMember(shard, name, refused
          + " (shards may hold only regular files and directories; store the file itself instead)");
    }
  }

  private void skipData(String name, long size) throws IOException {
    try {
      in.skipFully(padded(size));
    } catch (EOFException e) {
      throw truncated(name);
    }
  }

  private ArchiveException truncated(String name) {
    return ArchiveException.ofMember(shard, name, "truncated: the stream ends at offset " + in.position()
        + " inside the member's data");
  }

  private static boolean isZero(byte[] bytes) {
    for (byte b : bytes) {
      if (b != 0) {
        return false;
      }
    }
    return true;
  }

  private static byte[] trimNul(byte[] data) {
    int end = 0;
    while (end < data.length && data[end] != 0) {
      end++;
    }
    return java.util.Arrays.copyOf(data, end);
  }

  @Override
  public long directoriesSkipped() {
    return directories;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }

  /** A regular member; its data is read from the shared input until the reader moves on. */
  private final class Member extends StreamMember {
    private final String name;
    private final long size;
    private final RawRange raw;
    private final long dataOffset;

    Member(String name, long size, long rawStart, long dataOffset) {
      super(shard);
      this.name = name;
      this.size = size;
      this.dataOffset = dataOffset;
      this.raw = new RawRange(rawStart, dataOffset - rawStart + padded(size));
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public long size() {
      return size;
    }

    @Override
    public RawRange raw() {
      return raw;
    }

    @Override
    public InputStream data() {
      open();
      return new InputStream() {
        @Override
        public int read() throws IOException {
          byte[] one = new byte[1];
          return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
          long remaining = dataOffset + size - in.position();
          if (remaining <= 0) {
            return -1;
          }
          int read = in.read(buffer, offset, (int) Math.min(length, remaining));
          if (read < 0) {
            throw truncated(name);
          }
          return read;
        }
      };
    }

    @Override
    public byte[] readData() throws IOException {
      requireFitsInMemory(limits);
      // readNBytes grows its buffer as bytes arrive, so a corrupt size field cannot force a huge allocation.
      try (InputStream stream = data()) {
        byte[] data = stream.readNBytes((int) size);
        if (data.length < size) {
          throw truncated(name);
        }
        return data;
      }
    }

    @Override
    protected void skipRest() throws IOException {
      try {
        in.skipFully(raw.end() - in.position());
      } catch (EOFException e) {
        throw truncated(name);
      }
    }

    @Override
    public String toString() {
      return name + " (" + size + " bytes at " + raw + ")";
    }
  }
}
