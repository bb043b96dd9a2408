package dev.quarry.core.archive.zip;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardWriter;
import dev.quarry.core.archive.SpooledMember;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import org.apache.commons.compress.archivers.zip.Zip64Mode;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;
import org.apache.commons.io.output.CountingOutputStream;

/**
 * The zip writer Quarry had before its own, over Commons Compress's {@code ZipArchiveOutputStream}, kept as the oracle
 * of {@link ZipWriter}'s bytes: it holds every entry until the central directory is written, so it is for tests.
 */
final class CommonsZipWriter implements ShardWriter {
  private final ZipWriter.Method method;
  private final CountingOutputStream counted;
  private final RecordBuffer buffer;
  private final ZipArchiveOutputStream zip;
  private final Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
  private final byte[] chunk = new byte[1 << 16];
  private long records;
  private boolean closed;

  CommonsZipWriter(OutputStream out, ZipWriter.Method method) {
    this.method = method;
    this.counted = new CountingOutputStream(out);
    this.buffer = new RecordBuffer(counted);
    this.zip = new ZipArchiveOutputStream(buffer);
    zip.setEncoding("UTF-8");
    zip.setUseLanguageEncodingFlag(true);
    zip.setCreateUnicodeExtraFields(ZipArchiveOutputStream.UnicodeExtraFieldPolicy.NEVER);
    zip.setUseZip64(Zip64Mode.AsNeeded);
  }

  @Override
  public void write(Record record) throws IOException {
    for (Member member : record.members()) {
      writeMember(member.name(), member.data());
    }
    buffer.drain();
    records++;
  }

  /** The members read whole, then written as a record held in memory: the oracle holds what it writes. */
  @Override
  public void write(String key, List<SpooledMember> members) throws IOException {
    List<Member> held = new ArrayList<>();
    for (SpooledMember member : members) {
      try (InputStream data = member.open()) {
        held.add(new Member(member.name(), data.readAllBytes()));
      }
    }
    write(new Record(key, held));
  }

  private void writeMember(String name, byte[] data) throws IOException {
    if (name.endsWith("/")) {
      throw new IOException("Cannot write member " + name + " as zip: a name ending in '/' marks a directory");
    }
    CRC32 crc = new CRC32();
    crc.update(data);
    byte[] deflated = method == ZipWriter.Method.DEFLATED ? deflate(data) : null;
    boolean store = deflated == null || deflated.length >= data.length;
    byte[] raw = store ? data : deflated;

    ZipArchiveEntry entry = new ZipArchiveEntry(name);
    // setTimeLocal, not setTime: setTime converts through the default time zone and, for the DOS minimum, can add
    // extended-timestamp extra fields.
    entry.setTimeLocal(ZipWriter.ENTRY_TIME);
    entry.setUnixMode(ZipWriter.FILE_MODE);
    entry.setMethod(store ? ZipArchiveEntry.STORED : ZipArchiveEntry.DEFLATED);
    entry.setSize(data.length);
    entry.setCompressedSize(raw.length);
    entry.setCrc(crc.getValue());
    // A raw entry with known sizes and CRC gets them in its local header; a deflated entry put the usual way would
    // get a data descriptor instead, because the stream cannot be rewound.
    zip.addRawArchiveEntry(entry, new ByteArrayInputStream(raw));
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

  /** Writes the central directory and closes the stream. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      zip.close();
    } finally {
      deflater.end();
    }
  }

  /** Collects the many small writes of one record, then hands them on without flushing the stream below. */
  private static final class RecordBuffer extends BufferedOutputStream {
    RecordBuffer(OutputStream out) {
      super(out, 1 << 16);
    }

    void drain() throws IOException {
      if (count > 0) {
        out.write(buf, 0, count);
        count = 0;
      }
    }
  }

}
