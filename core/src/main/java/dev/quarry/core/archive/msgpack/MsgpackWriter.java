package dev.quarry.core.archive.msgpack;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardWriter;
import dev.quarry.core.archive.SpooledMember;
import dev.quarry.core.text.Printable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;

/**
 * Writes a msgpack shard as WebDataset reads one: per record, a map of {@code __key__} to the key, then each member's
 * suffix to its bytes (binary), in the record's order. The bytes depend only on the records.
 */
public final class MsgpackWriter implements ShardWriter {
  private final CountingOutput counted;
  private final MessagePacker packer;
  private long records;
  private boolean closed;

  public MsgpackWriter(OutputStream out) {
    this.counted = new CountingOutput(out);
    this.packer = MessagePack.newDefaultPacker(counted);
  }

  @Override
  public void write(Record record) throws IOException {
    List<Member> members = record.members();
    startRecord(record.key(), members.stream().map(Member::name).toList());
    for (Member member : members) {
      packer.packString(member.suffix());
      packer.packBinaryHeader(member.data().length);
      packer.writePayload(member.data());
    }
    // Hands the record's bytes on without flushing the stream below, so bytesWritten is exact between records.
    packer.flush();
    records++;
  }

  /** The same bytes as {@link #write(Record)}, each member's data copied from its file a chunk at a time. */
  @Override
  public void write(String key, List<SpooledMember> members) throws IOException {
    startRecord(key, members.stream().map(SpooledMember::name).toList());
    byte[] chunk = new byte[1 << 16];
    for (SpooledMember member : members) {
      packer.packString(member.suffix());
      packer.packBinaryHeader(Math.toIntExact(member.size()));
      try (InputStream data = member.open()) { // exactly its size, or it fails
        for (int read = data.read(chunk); read >= 0; read = data.read(chunk)) {
          packer.writePayload(chunk, 0, read);
        }
      }
    }
    packer.flush();
    records++;
  }

  /** Checks the members' suffixes, then packs the record's map header and its key. */
  private void startRecord(String key, List<String> memberNames) throws IOException {
    checkSuffixes(key, memberNames);
    packer.packMapHeader(1 + memberNames.size());
    packer.packString(MsgpackReader.KEY);
    packer.packString(key);
  }

  /** A member's suffix is its map key: it must exist, be unique in the record, and not be the key's own entry. */
  private static void checkSuffixes(String key, List<String> memberNames) throws IOException {
    Map<String, String> names = new HashMap<>();
    for (String name : memberNames) {
      String suffix = Member.suffixOf(name);
      String problem = null;
      if (suffix.isEmpty()) {
        problem = "member " + name + " has no suffix after its key";
      } else if (suffix.equals(MsgpackReader.KEY)) {
        problem = "member " + name + " has the suffix " + MsgpackReader.KEY + ", which holds the key";
      } else if (names.containsKey(suffix)) {
        problem = "members " + names.get(suffix) + " and " + name + " have the same suffix";
      }
      if (problem != null) {
        throw new IOException("Cannot write record " + Printable.of(key) + " as msgpack: " + problem);
      }
      names.put(suffix, name);
    }
  }

  @Override
  public long records() {
    return records;
  }

  @Override
  public long bytesWritten() {
    return counted.count;
  }

  /** Writes what is buffered and closes the stream. */
  @Override
  public void close() throws IOException {
    if (!closed) {
      closed = true;
      packer.close();
    }
  }

  /** Counts bytes on their way to the stream; flushes stop here, closing goes through. */
  private static final class CountingOutput extends OutputStream {
    private final OutputStream out;
    private long count;

    CountingOutput(OutputStream out) {
      this.out = out;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      count++;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      out.write(bytes, offset, length);
      count += length;
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }
}
