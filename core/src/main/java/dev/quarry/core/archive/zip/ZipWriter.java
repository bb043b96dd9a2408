package dev.quarry.core.archive.zip;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardWriter;
import dev.quarry.core.archive.SpooledMember;
import dev.quarry.core.fs.WorkFolder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import org.apache.commons.io.output.CountingOutputStream;

/**
 * Writes a zip whose bytes depend only on the members: every entry gets the same metadata (DOS time 1980-01-01
 * 00:00:00 whatever the time zone, Unix mode 0444, UTF-8 name, no extra fields, no comment). Sizes and CRC-32 go in
 * each local header, never in a data descriptor, so streaming readers know a member's size before its data; zip64
 * records are added only when needed (more than 65,534 entries, or offsets past 4 GiB). The bytes are those Commons
 * Compress's {@code ZipArchiveOutputStream} writes for the same entries ({@code ZipWriterTest} holds them to it),
 * which this writer used to be; but it holds no entry once written: the central directory's records are kept as
 * bytes, and past {@value #DIRECTORY_BYTES_HELD} bytes in a temporary file (in the folder given, or the JVM's), so
 * that a shard of millions of members needs no more heap than one of a few (Commons Compress held some 400 bytes of
 * objects for each, and a create worker of the least budget ran out of heap converting a shard of 240,000 records).
 */
public final class ZipWriter implements ShardWriter {
  /** How members are compressed. */
  public enum Method {
    /** Deflated at the default level; a member that does not shrink is stored instead, as {@code zip} does. */
    DEFLATED,
    /** Stored as is: for data that is already compressed, such as JPEG. */
    STORED
  }

  static final int FILE_MODE = 0100444;
  /** The earliest time a zip can hold; set as local time, so the DOS fields are the same in every time zone. */
  static final LocalDateTime ENTRY_TIME = LocalDateTime.of(1980, 1, 1, 0, 0);
  /** The largest member of a spooled record read whole; larger ones are streamed from their file. */
  static final int MEMBER_BYTES_HELD = 1 << 20;
  /** Central directory bytes held in the heap; past them, they go to a temporary file. */
  static final int DIRECTORY_BYTES_HELD = 1 << 20;

  private static final int LOCAL_HEADER = 0x04034b50;
  private static final int CENTRAL_HEADER = 0x02014b50;
  private static final int END_OF_DIRECTORY = 0x06054b50;
  private static final int ZIP64_END_OF_DIRECTORY = 0x06064b50;
  private static final int ZIP64_LOCATOR = 0x07064b50;
  private static final int ZIP64_EXTRA = 0x0001;
  private static final long ZIP64_MAGIC = 0xFFFFFFFFL;
  private static final int ZIP64_MAGIC_SHORT = 0xFFFF;
  private static final int STORED = 0;
  private static final int DEFLATED = 8;
  /** Versions needed to extract: a stored member, a deflated one, and zip64 records. */
  private static final int VERSION_STORED = 10;
  private static final int VERSION_DEFLATED = 20;
  private static final int VERSION_ZIP64 = 45;
  private static final int PLATFORM_UNIX = 3;
  /** General purpose flag: names are UTF-8. */
  private static final int UTF8_NAMES = 0x0800;
  /** DOS date of 1980-01-01 (time 00:00:00 is 0). */
  private static final int DOS_DATE = 1 << 5 | 1;
  /** External attributes: the Unix mode above, and MS-DOS read-only since it has no write bit. */
  private static final int EXTERNAL_ATTRIBUTES = FILE_MODE << 16 | 1;

  private final Method method;
  /** Where the central directory waits past {@link #DIRECTORY_BYTES_HELD}. */
  private final Path temporaryFolder;
  private final CountingOutputStream counted;
  private final Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
  private final byte[] chunk = new byte[1 << 16];
  private final ByteArrayOutputStream header = new ByteArrayOutputStream(512);
  /** The central directory's records so far: the last of them held, the earlier in {@link #directoryFile}. */
  private final ByteArrayOutputStream directory = new ByteArrayOutputStream();
  private Path directoryFile;
  private OutputStream directorySpill;
  private long directoryBytes;
  private long entries;
  /** Whether an entry so far has needed zip64 records: entries from it on say they were made by a zip64 writer. */
  private boolean zip64Used;
  private long records;
  private boolean closed;

  public ZipWriter(OutputStream out) {
    this(out, Method.DEFLATED);
  }

  public ZipWriter(OutputStream out, Method method) {
    this(out, method, Path.of(System.getProperty("java.io.tmpdir")));
  }

  /** A writer whose central directory waits, past 1 MiB, in {@code temporaryFolder} (a process's work folder). */
  public ZipWriter(OutputStream out, Method method, Path temporaryFolder) {
    this.method = method;
    this.temporaryFolder = temporaryFolder;
    this.counted = new CountingOutputStream(out);
  }

  @Override
  public void write(Record record) throws IOException {
    for (Member member : record.members()) {
      writeMember(member.name(), member.data());
    }
    records++;
  }

  /**
   * Members of up to {@value #MEMBER_BYTES_HELD} bytes are read whole and written as {@link #write(Record)} writes
   * them; a larger one is read twice from its file: once for its CRC-32 while it is deflated to a temporary file,
   * then, stored, again (a local header carries the CRC and sizes before the data). Deflate's output does not depend
   * on how its input is split, so the bytes are the same as held whole ({@code ShardBuilderTest}).
   */
  @Override
  public void write(String key, List<SpooledMember> members) throws IOException {
    for (SpooledMember member : members) {
      if (member.size() <= MEMBER_BYTES_HELD) {
        try (InputStream in = member.open()) {
          writeMember(member.name(), in.readAllBytes());
        }
      } else {
        writeStreamed(member);
      }
    }
    records++;
  }

  private void writeMember(String name, byte[] data) throws IOException {
    byte[] encoded = encodedName(name);
    CRC32 crc = new CRC32();
    crc.update(data);
    byte[] deflated = method == Method.DEFLATED ? deflate(data) : null;
    boolean store = deflated == null || deflated.length >= data.length;
    byte[] raw = store ? data : deflated;
    writeEntry(encoded, crc.getValue(), raw.length, data.length, store, out -> out.write(raw));
  }

  private void writeStreamed(SpooledMember member) throws IOException {
    byte[] encoded = encodedName(member.name());
    CRC32 crc = new CRC32();
    Path deflatedFile = null;
    try {
      long deflatedLength = -1;
      OutputStream deflatedOut = null;
      try (InputStream in = member.open()) {
        if (method == Method.DEFLATED) {
          String what = "a zip member's deflated data";
          deflatedFile = WorkFolder.createTempFile(temporaryFolder, "quarry-zip-member-", ".bin", what);
          deflatedOut = WorkFolder.keeping(Files.newOutputStream(deflatedFile), what);
          deflater.reset();
          deflatedLength = 0;
        }
        byte[] input = new byte[1 << 16];
        for (int n = in.read(input); n >= 0; n = in.read(input)) {
          crc.update(input, 0, n);
          if (deflatedLength >= 0) {
            deflater.setInput(input, 0, n);
            while (!deflater.needsInput() && deflatedLength >= 0) {
              deflatedLength = drain(deflatedOut, deflatedLength, member.size());
            }
          }
        }
        if (deflatedLength >= 0) {
          deflater.finish();
          while (!deflater.finished() && deflatedLength >= 0) {
            deflatedLength = drain(deflatedOut, deflatedLength, member.size());
          }
        }
      } finally {
        if (deflatedOut != null) {
          deflatedOut.close();
        }
      }
      boolean store = deflatedLength < 0 || deflatedLength >= member.size();
      Path deflated = deflatedFile;
      writeEntry(encoded, crc.getValue(), store ? member.size() : deflatedLength, member.size(), store, out -> {
        try (InputStream data = store ? member.open() : Files.newInputStream(deflated)) {
          data.transferTo(out);
        }
      });
    } finally {
      if (deflatedFile != null) {
        Files.deleteIfExists(deflatedFile);
      }
    }
  }

  /**
   * Writes what the deflater has to {@code out}, returning the deflated length so far, or -1 once it passes the
   * member's {@code size}: then it is stored, as {@link #deflate} decides.
   */
  private long drain(OutputStream out, long deflatedLength, long size) throws IOException {
    int length = deflater.deflate(chunk);
    out.write(chunk, 0, length);
    long total = deflatedLength + length;
    return total > size ? -1 : total;
  }

  /** The member's name as UTF-8, refused when it names a directory or is longer than a zip holds. */
  private static byte[] encodedName(String name) throws IOException {
    if (name.endsWith("/")) {
      throw new IOException("Cannot write member " + name + " as zip: a name ending in '/' marks a directory");
    }
    byte[] encoded = name.getBytes(StandardCharsets.UTF_8);
    if (encoded.length > ZIP64_MAGIC_SHORT) {
      throw new IOException("Cannot write member " + name.substring(0, 64) + "... as zip: its name is "
          + encoded.length + " bytes, more than a zip's 65,535");
    }
    return encoded;
  }

  /** Writes a member's data, already counted in its header. */
  private interface MemberData {
    void writeTo(OutputStream out) throws IOException;
  }

  /** The local header, the data {@code data} writes, and the member's record in the central directory. */
  private void writeEntry(byte[] encoded, long crc, long compressed, long size, boolean store, MemberData data)
      throws IOException {
    int compression = store ? STORED : DEFLATED;
    long offset = counted.getByteCount();

    header.reset();
    int32(LOCAL_HEADER);
    entryFields(store ? VERSION_STORED : VERSION_DEFLATED, compression, crc, compressed, size, encoded.length);
    int16(0);
    header.write(encoded);
    header.writeTo(counted);
    data.writeTo(counted);

    // A member is under 2 GiB (a record is), so only its offset can need zip64: then its record gets the zip64
    // extra field with the offset alone, and it and every later one say zip64 made them, as Commons Compress has it.
    boolean zip64 = offset >= ZIP64_MAGIC;
    zip64Used |= zip64;
    header.reset();
    int32(CENTRAL_HEADER);
    int16(PLATFORM_UNIX << 8 | (zip64Used ? VERSION_ZIP64 : VERSION_DEFLATED));
    entryFields(zip64 ? VERSION_ZIP64 : store ? VERSION_STORED : VERSION_DEFLATED, compression, crc, compressed,
        size, encoded.length);
    int16(zip64 ? 12 : 0);
    int16(0); // comment length
    int16(0); // disk number start
    int16(0); // internal attributes
    int32(EXTERNAL_ATTRIBUTES);
    int32(Math.min(offset, ZIP64_MAGIC));
    header.write(encoded);
    if (zip64) {
      int16(ZIP64_EXTRA);
      int16(8);
      int64(offset);
    }
    addToDirectory();
    entries++;
  }

  /**
   * The fields a local header and a central directory record share, in order: the version needed to extract, flags,
   * method, time and date, CRC-32, sizes and the name's length.
   */
  private void entryFields(int version, int compression, long crc, long compressed, long size, int nameLength) {
    int16(version);
    int16(UTF8_NAMES);
    int16(compression);
    int16(0);
    int16(DOS_DATE);
    int32(crc);
    int32(compressed);
    int32(size);
    int16(nameLength);
  }

  /** Adds the record in {@link #header} to the central directory, moving what is held to the file past the bound. */
  private void addToDirectory() throws IOException {
    header.writeTo(directory);
    directoryBytes += header.size();
    if (directory.size() >= DIRECTORY_BYTES_HELD) {
      if (directorySpill == null) {
        String what = "a zip shard's central directory";
        directoryFile = WorkFolder.createTempFile(temporaryFolder, "quarry-zip-directory-", ".bin", what);
        directorySpill = WorkFolder.keeping(Files.newOutputStream(directoryFile), what);
      }
      directory.writeTo(directorySpill);
      directory.reset();
    }
  }

  private byte[] deflate(byte[] data) {
    deflater.reset();
    deflater.setInput(data);
    deflater.finish();
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, data.length / 2));
    while (!deflater.finished()) {
      int length = deflater.deflate(chunk);
      out.write(chunk, 0, length);
      // Past the data's own size it will be stored anyway.
      if (out.size() > data.length) {
        return null;
      }
    }
    return out.toByteArray();
  }

  @Override
  public long records() {
    return records;
  }

  @Override
  public long bytesWritten() {
    return counted.getByteCount();
  }

  /** Writes the central directory and its end, and closes the stream. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try (OutputStream out = counted) {
      long directoryOffset = counted.getByteCount();
      if (directorySpill != null) {
        directorySpill.close();
        directorySpill = null;
        try (InputStream spilled = Files.newInputStream(directoryFile)) {
          spilled.transferTo(counted);
        }
      }
      directory.writeTo(counted);
      writeEnd(directoryOffset);
    } finally {
      deflater.end();
      if (directorySpill != null) {
        directorySpill.close();
      }
      if (directoryFile != null) {
        Files.deleteIfExists(directoryFile);
      }
    }
  }

  /** The zip64 end of central directory record and its locator when needed, then the end of central directory. */
  private void writeEnd(long directoryOffset) throws IOException {
    header.reset();
    if (zip64Used || entries >= ZIP64_MAGIC_SHORT || directoryBytes >= ZIP64_MAGIC
        || directoryOffset >= ZIP64_MAGIC) {
      long zip64End = directoryOffset + directoryBytes;
      int32(ZIP64_END_OF_DIRECTORY);
      int64(44); // the record's size after this field
      int16(VERSION_ZIP64);
      int16(VERSION_ZIP64);
      int32(0); // this disk
      int32(0); // the disk where the central directory starts
      int64(entries);
      int64(entries);
      int64(directoryBytes);
      int64(directoryOffset);
      int32(ZIP64_LOCATOR);
      int32(0);
      int64(zip64End);
      int32(1); // disks
    }
    int32(END_OF_DIRECTORY);
    int16(0);
    int16(0);
    int16((int) Math.min(entries, ZIP64_MAGIC_SHORT));
    int16((int) Math.min(entries, ZIP64_MAGIC_SHORT));
    int32(Math.min(directoryBytes, ZIP64_MAGIC));
    int32(Math.min(directoryOffset, ZIP64_MAGIC));
    int16(0); // comment length
    header.writeTo(counted);
  }

  private void int16(int value) {
    header.write(value);
    header.write(value >>> 8);
  }

  private void int32(long value) {
    int16((int) (value & 0xFFFF));
    int16((int) (value >>> 16 & 0xFFFF));
  }

  private void int64(long value) {
    int32(value & ZIP64_MAGIC);
    int32(value >>> 32);
  }
}
