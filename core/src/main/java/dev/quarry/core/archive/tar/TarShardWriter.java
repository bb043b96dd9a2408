package dev.quarry.core.archive.tar;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.io.output.CountingOutputStream;

/**
 * Writes a POSIX tar whose bytes depend only on the records: every member gets the same fixed metadata, and names
 * longer than ustar allows get a PAX extended header.
 */
public final class TarShardWriter implements ShardWriter {
  /** Fixed member metadata, so that the same records always give the same bytes. */
  static final long MTIME_SECONDS = 0;
  static final int MODE = 0100444;
  static final String OWNER = "quarry";

  private final CountingOutputStream counted;
  private final TarArchiveOutputStream tar;
  private long records;

  public TarShardWriter(OutputStream out) {
    this.counted = new CountingOutputStream(out);
    this.tar = new TarArchiveOutputStream(counted, StandardCharsets.UTF_8.name());
    tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
    tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
    tar.setAddPaxHeadersForNonAsciiNames(true);
  }

  @Override
  public void write(Record record) throws IOException {
    for (Member member : record.members()) {
      TarArchiveEntry entry = new TarArchiveEntry(member.name(), true);
      entry.setSize(member.data().length);
      entry.setMode(MODE);
      entry.setModTime(new Date(MTIME_SECONDS * 1000));
      entry.setUserName(OWNER);
      entry.setGroupName(OWNER);
      entry.setIds(0, 0);
      tar.putArchiveEntry(entry);
      tar.write(member.data());
      tar.closeArchiveEntry();
    }
    records++;
  }

  @Override
  public long records() {
    return records;
  }

  @Override
  public long bytesWritten() {
    return counted.getByteCount();
  }

  @Override
  public void close() throws IOException {
    tar.close();
  }
}
