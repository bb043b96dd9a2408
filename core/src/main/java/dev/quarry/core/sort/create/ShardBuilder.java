package dev.quarry.core.sort.create;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.RecordKeys;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.ShardWriter;
import dev.quarry.core.archive.ShardWriters;
import dev.quarry.core.archive.SpooledMember;
import dev.quarry.core.archive.tar.CopyingInput;
import dev.quarry.core.archive.tar.TarFormat;
import dev.quarry.core.archive.tar.TarReader;
import dev.quarry.core.fs.WorkFolder;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.store.BlockChecksums;
import dev.quarry.core.store.HashedContent;
import dev.quarry.core.store.RangedContent;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.text.Printable;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.io.input.BoundedInputStream;
import org.apache.commons.io.input.CloseShieldInputStream;
import org.apache.commons.io.output.CloseShieldOutputStream;

/**
 * Makes one output shard from its records' raw tar bytes, in plan order: a tar output is those bytes as they are,
 * then the end-of-archive blocks; any other format parses each record's bytes back into members and writes them with
 * that format's writer.
 */
final class ShardBuilder {
  private static final int COPY_BLOCK = 1 << 20;
  /** What a record's raw bytes unlike its entry mean: read where extract found them, they are no longer those. */
  private static final String CHANGED = " (" + RecordSource.INPUT_CHANGED + ")";

  private ShardBuilder() {}

  /**
   * A tar shard of the raw bytes in {@code raw}, hashed in one pass here: the store sends it without hashing it again,
   * and where it cannot send it in one signed request (over HTTPS), sends its parts from where the bytes are, holding
   * none ({@link dev.quarry.core.store.ObjectStore#put(String, HashedContent)}).
   */
  static HashedContent tar(RangedContent raw, ShardEntries entries) throws IOException {
    RangedContent shard = RangedContent.concat(List.of(raw, RangedContent.of(TarFormat.END_OF_ARCHIVE)));
    MessageDigest sha256 = Digest.sha256();
    BlockChecksums.Builder blocks = new BlockChecksums.Builder(RecordSource.INPUT_CHANGED);
    try (InputStream in = raw.open(0, raw.length())) {
      copyTar(in, entries, new DigestOutputStream(blocks, sha256));
    }
    // The upload reads the records again, from the input where extract found them: it must send what was checked.
    return HashedContent.of(shard, sha256.digest(), blocks.build());
  }

  /**
   * Writes a tar shard of the raw bytes {@code raw} gives, then the end-of-archive blocks, checking as they pass that
   * each record's bytes are whole tar members of its key, one after another as its entry in {@code entries} sizes them.
   * A plain tar's records are read from the input where extract found them: an input rewritten since, its records
   * moved or others in their place with the same length, was copied as it then was, member boundaries in the middle
   * of data or other records where the plan has these, with no error. Checked, it fails before the end-of-archive
   * blocks, so that the caller does not commit the shard. The check parses each header; the data passes as it is read.
   */
  static void copyTar(InputStream raw, ShardEntries entries, OutputStream target) throws IOException {
    CopyingInput copying = new CopyingInput(raw, target, COPY_BLOCK);
    try (ShardEntries.Cursor cursor = entries.cursor()) {
      TarReader reader = new TarReader(copying, "the records' bytes", ArchiveLimits.RECORDS_READ_BACK);
      long start = 0;
      RecordEntry last = null;
      for (RecordEntry entry = cursor.next(); entry != null; entry = cursor.next()) {
        last = entry;
        RecordBytes record = new RecordBytes(entry, "write", start);
        while (!record.whole()) {
          record.add(nextMember(reader, entry));
        }
        start += entry.size();
      }
      // Past the last member's data: the raw bytes end there, as the end-of-archive blocks would follow (the reader
      // takes a zero block for the end, and copies what follows it).
      if (last != null && (nextMember(reader, last) != null || copying.copied() != start)) {
        throw notItsBytes(last, "write");
      }
    }
    target.write(TarFormat.END_OF_ARCHIVE);
  }

  /** The next member of a record's raw bytes, or null at their end; bytes that are not tar members are not its. */
  private static ArchiveMember nextMember(TarReader reader, RecordEntry entry) throws IOException {
    try {
      return reader.next();
    } catch (ArchiveException e) {
      throw notItsBytes(entry, "read", e);
    }
  }

  private static byte[] readData(ArchiveMember member, RecordEntry entry) throws IOException {
    try {
      return member.readData();
    } catch (ArchiveException e) {
      throw notItsBytes(entry, "read", e);
    }
  }

  /**
   * A shard of another format than tar, written to the local file {@code file} and hashed as it is written: the
   * store sends it from there as it sends a tar shard, holding no part. Streamed instead, each of the shards a create
   * worker writes at once held its parts in flight and the one filling (5 of 8 MiB), out of any budget.
   */
  static HashedContent converted(ShardFormat format, ShardEntries entries, RangedContent raw, Path file,
      long recordBytesHeld) throws IOException {
    // What the writer keeps until the end goes next to the shard's file, in the worker's work folder.
    MessageDigest sha256 = Digest.sha256();
    try (InputStream in = raw.open(0, raw.length());
        OutputStream out = new DigestOutputStream(new BufferedOutputStream(Files.newOutputStream(file), COPY_BLOCK),
            sha256)) {
      convert(format, entries, in, out, file.getParent(), recordBytesHeld);
    }
    return HashedContent.of(RangedContent.of(file), sha256.digest());
  }

  /**
   * Writes a shard of another format than tar, parsing each record's raw tar bytes back into members; what the
   * format's writer keeps until the end goes to {@code work}. A record of up to {@code recordBytesHeld} bytes is held
   * whole while it is written; a larger one's members are copied to a file in {@code work} and written from there
   * ({@link ShardWriter#write(String, List)}, the same bytes): held, a record of 150 MiB ran a worker under a 256Mi
   * budget out of heap.
   */
  static void convert(ShardFormat format, ShardEntries entries, InputStream raw, OutputStream target, Path work,
      long recordBytesHeld) throws IOException {
    // The writer's close finishes the archive; the upload, not the writer, owns the target stream.
    OutputStream out = CloseShieldOutputStream.wrap(target);
    try (InputStream in = new BufferedInputStream(raw, COPY_BLOCK);
        ShardEntries.Cursor cursor = entries.cursor();
        ShardWriter writer = ShardWriters.open(format, out, work)) {
      for (RecordEntry entry = cursor.next(); entry != null; entry = cursor.next()) {
        if (entry.size() <= recordBytesHeld) {
          byte[] record = in.readNBytes((int) entry.size());
          if (record.length != entry.size()) {
            throw notItsBytes(entry, "convert");
          }
          writer.write(parse(entry, record));
        } else {
          writeSpooled(writer, entry, in, work);
        }
      }
    }
  }

  /**
   * Writes record {@code entry}, its raw tar bytes next in {@code in}, from one file in {@code work} that holds its
   * members' data one after the other, removed once the record is written.
   */
  private static void writeSpooled(ShardWriter writer, RecordEntry entry, InputStream in, Path work)
      throws IOException {
    String what = "a record too large to hold while it is converted";
    Path file = WorkFolder.createTempFile(work, "quarry-record-", ".data", what);
    try {
      List<SpooledMember> members = new ArrayList<>();
      BoundedInputStream recordBytes = BoundedInputStream.builder().setInputStream(CloseShieldInputStream.wrap(in))
          .setMaxCount(entry.size()).get();
      try (OutputStream data = WorkFolder.keeping(new BufferedOutputStream(Files.newOutputStream(file), COPY_BLOCK),
              what);
          TarReader reader = recordReader(entry, recordBytes)) {
        RecordBytes record = new RecordBytes(entry, "convert", 0);
        long offset = 0;
        for (ArchiveMember member = nextMember(reader, entry); member != null; member = nextMember(reader, entry)) {
          record.add(member);
          long copied;
          try (InputStream memberData = member.data()) {
            copied = memberData.transferTo(data);
          }
          members.add(new SpooledMember(member.name(), copied, file, offset));
          offset += copied;
        }
        // The reader read on to the end-of-archive blocks after the record's bytes: the next record's come next.
        record.requireWhole();
      }
      writer.write(entry.key(), members);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /**
   * The members met in a record's raw bytes, held to what its entry says: each starts where the one before ended, by
   * WebDataset's rule belongs to the record (as extract grouped them), and together they are the entry's bytes,
   * exactly. One rule for the tar copy and the conversions: a conversion's reader stops at a zero block, or reads a
   * last member's data on into the end-of-archive blocks, so a record's bytes rewritten since extract could otherwise
   * give fewer members, or a member cut, with no error.
   */
  private static final class RecordBytes {
    private final RecordEntry entry;
    private final String action;
    private final long end;
    private long at;

    /** {@code action}: "write" or "convert"; {@code start}: where the record's bytes start in what is read. */
    RecordBytes(RecordEntry entry, String action, long start) {
      this.entry = entry;
      this.action = action;
      this.at = start;
      this.end = start + entry.size();
    }

    /** Takes the next member met (null: none before the end of the bytes). */
    void add(ArchiveMember member) throws IOException {
      if (member == null || member.raw().offset() != at || member.raw().length() > end - at) {
        throw notItsBytes(entry, action);
      }
      if (!RecordKeys.of(member.name()).equals(entry.key())) {
        throw new IOException(cannot(action, entry) + "its raw bytes hold member " + Printable.of(member.name())
            + ", of another record" + CHANGED);
      }
      at += member.raw().length();
    }

    /** Whether the members met are all of the record's bytes. */
    boolean whole() {
      return at == end;
    }

    void requireWhole() throws IOException {
      if (!whole()) {
        throw notItsBytes(entry, action);
      }
    }
  }

  /** {@code action}: "write" or "convert". */
  private static IOException notItsBytes(RecordEntry entry, String action) {
    return notItsBytes(entry, action, null);
  }

  private static IOException notItsBytes(RecordEntry entry, String action, ArchiveException cause) {
    return new IOException(cannot(action, entry) + "its raw bytes are not the " + entry.size() + " of whole tar"
        + " members its entry says" + CHANGED, cause);
  }

  private static String cannot(String action, RecordEntry entry) {
    return "Cannot " + action + " record " + Printable.of(entry.key()) + " of input shard " + entry.shard() + ": ";
  }

  /** A reader of one record's raw tar bytes, {@code bytes}, ended as an archive is so that it stops after them. */
  private static TarReader recordReader(RecordEntry entry, InputStream bytes) {
    return new TarReader(new SequenceInputStream(bytes, new ByteArrayInputStream(TarFormat.END_OF_ARCHIVE)),
        "record " + entry.key(), ArchiveLimits.RECORDS_READ_BACK);
  }

  /** A record's members from its raw tar bytes. */
  private static Record parse(RecordEntry entry, byte[] raw) throws IOException {
    List<Member> members = new ArrayList<>();
    try (TarReader reader = recordReader(entry, new ByteArrayInputStream(raw))) {
      RecordBytes record = new RecordBytes(entry, "convert", 0);
      for (ArchiveMember member = nextMember(reader, entry); member != null; member = nextMember(reader, entry)) {
        record.add(member);
        members.add(new Member(member.name(), readData(member, entry)));
      }
      record.requireWhole();
    }
    return new Record(entry.key(), members);
  }
}
