package dev.quarry.core.sort.create;

import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.ShardWriter;
import dev.quarry.core.archive.ShardWriters;
import dev.quarry.core.archive.tar.TarFormat;
import dev.quarry.core.archive.tar.TarReader;
import dev.quarry.core.archive.tar.TarWriter;
import dev.quarry.core.sort.records.RecordEntry;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.io.output.CloseShieldOutputStream;

/**
 * Writes one output shard from its records' raw tar bytes, in plan order: a tar output copies them as they are; any
 * other format parses each record's bytes back into members and writes them with that format's writer.
 */
final class ShardBuilder {
  private static final int COPY_BLOCK = 1 << 20; // whole 512-byte blocks

  private ShardBuilder() {}

  static void build(ShardFormat format, List<RecordEntry> entries, InputStream raw, OutputStream target)
      throws IOException {
    // The writer's close finishes the archive; the upload, not the writer, owns the target stream.
    OutputStream out = CloseShieldOutputStream.wrap(target);
    try (InputStream in = new BufferedInputStream(raw, COPY_BLOCK)) {
      if (format == ShardFormat.TAR) {
        try (TarWriter writer = new TarWriter(out)) {
          byte[] block = new byte[COPY_BLOCK];
          for (int read = in.readNBytes(block, 0, block.length); read > 0; read = in.readNBytes(block, 0,
              block.length)) {
            writer.writeRaw(block, 0, read);
          }
          entries.forEach(entry -> writer.countRecord());
        }
        return;
      }
      try (ShardWriter writer = ShardWriters.open(format, out)) {
        for (RecordEntry entry : entries) {
          writer.write(parse(entry, in.readNBytes((int) entry.size())));
        }
      }
    }
  }

  /** A record's members from its raw tar bytes. */
  private static Record parse(RecordEntry entry, byte[] raw) throws IOException {
    List<Member> members = new ArrayList<>();
    SequenceInputStream tar = new SequenceInputStream(new ByteArrayInputStream(raw),
        new ByteArrayInputStream(TarFormat.END_OF_ARCHIVE));
    try (TarReader reader = new TarReader(tar, "record " + entry.key(), ArchiveLimits.DEFAULT)) {
      for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
        members.add(new Member(member.name(), member.readData()));
      }
    }
    return new Record(entry.key(), members);
  }
}
