package dev.quarry.core.archive.msgpack;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.MemberNames;
import dev.quarry.core.archive.RecordKeys;
import dev.quarry.core.archive.ShardReader;
import dev.quarry.core.archive.SourceInput;
import dev.quarry.core.archive.StreamMember;
import dev.quarry.core.text.Printable;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;
import org.msgpack.core.MessageInsufficientBufferException;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Streams the members of a msgpack shard as WebDataset reads one: concatenated maps, one per record, each mapping
 * {@code __key__} to the record's key and each member's suffix (such as {@code jpg} or {@code seg.png}) to its bytes.
 * A member is named key, dot, suffix. Values may be binary or strings (Python writers store text as strings; their
 * UTF-8 bytes are the data). Members after {@code __key__} stream; those before it, when a writer put the key last,
 * are held in memory until it is read.
 */
public final class MsgpackReader implements ShardReader {
  static final String KEY = "__key__";
  /** Most entries one record's map may have: beyond any real sample, and it bounds per-record bookkeeping. */
  static final int MAX_ENTRIES = 10_000;
  private static final int CHUNK = 1 << 16;

  private final MessageUnpacker unpacker;
  private final String shard;
  private final ArchiveLimits limits;
  private final Deque<StreamMember> held = new ArrayDeque<>();
  private final Set<String> suffixes = new HashSet<>();
  private long recordIndex = -1;
  private int entriesLeft;
  private String key;
  private StreamMember current;
  private boolean ended;

  public MsgpackReader(InputStream in, String shard, ArchiveLimits limits) {
    this.unpacker = MessagePack.newDefaultUnpacker(new SourceInput(in));
    this.shard = shard;
    this.limits = limits;
  }

  @Override
  public ArchiveMember next() throws IOException {
    if (ended) {
      return null;
    }
    try {
      if (current != null) {
        current.pass();
        current = null;
      }
      current = advance();
      ended = current == null;
      return current;
    } catch (SourceInput.SourceFailure e) {
      throw e.getCause();
    } catch (MessageInsufficientBufferException e) {
      throw ArchiveException.of(shard, "truncated: the stream ends inside " + record(), e);
    } catch (MessagePackException | IllegalArgumentException e) {
      throw ArchiveException.of(shard, "corrupt msgpack data in " + record() + ": " + e.getMessage(), e);
    }
  }

  private StreamMember advance() throws IOException {
    while (true) {
      if (!held.isEmpty()) {
        return held.removeFirst();
      }
      if (entriesLeft > 0) {
        entriesLeft--;
        String suffix = readString("a map key");
        if (suffix.equals(KEY)) {
          throw ArchiveException.of(shard, record() + " has " + KEY + " twice");
        }
        String name = memberName(suffix);
        int length = readValueHeader(name, valueType(), false);
        return new StreamedMember(name, length);
      }
      if (!unpacker.hasNext()) {
        return null;
      }
      startRecord();
    }
  }

  /** Reads a record's map up to its {@code __key__}, holding the members met before it. */
  private void startRecord() throws IOException {
    recordIndex++;
    key = null;
    suffixes.clear();
    ValueType type = unpacker.getNextFormat().getValueType();
    if (type != ValueType.MAP) {
      throw ArchiveException.of(shard, record() + " is " + article(type) + ", not a map (a msgpack shard is a "
          + "sequence of maps, one per record)");
    }
    entriesLeft = unpacker.unpackMapHeader();
    if (entriesLeft > MAX_ENTRIES) {
      throw ArchiveException.of(shard, record() + " has " + entriesLeft + " entries, more than the " + MAX_ENTRIES
          + " allowed");
    }
    Deque<String> heldSuffixes = new ArrayDeque<>();
    Deque<byte[]> heldData = new ArrayDeque<>();
    long heldBytes = 0;
    String refusedSuffix = null;
    ValueType refusedType = null;
    while (key == null) {
      if (entriesLeft == 0) {
        throw ArchiveException.of(shard, record() + " has no " + KEY + " (each map needs one: the record's key)");
      }
      entriesLeft--;
      String entryKey = readString("a map key");
      if (entryKey.equals(KEY)) {
        key = readRecordKey();
        continue;
      }
      ValueType valueType = valueType();
      if (!isData(valueType)) {
        // Named once the key is known.
        if (refusedSuffix == null) {
          refusedSuffix = entryKey;
          refusedType = valueType;
        }
        unpacker.skipValue();
        continue;
      }
      int length = readValueHeader(entryKey + " of " + record(), valueType, true);
      heldBytes += length;
      if (heldBytes > limits.maxMemberBytes()) {
        throw ArchiveException.of(shard, record() + " has more than " + limits.maxMemberBytes()
            + " bytes of members before its " + KEY + ", more than may be held in memory (write " + KEY + " first)");
      }
      heldSuffixes.add(entryKey);
      heldData.add(readPayload(length, (buffer, part) -> unpacker.readPayload(buffer, 0, part)));
    }
    if (refusedSuffix != null) {
      throw notData(memberName(refusedSuffix), refusedType);
    }
    while (!heldSuffixes.isEmpty()) {
      held.add(StreamMember.held(shard, memberName(heldSuffixes.removeFirst()), heldData.removeFirst()));
    }
  }

  private String readRecordKey() throws IOException {
    ValueType type = valueType();
    if (type != ValueType.STRING && type != ValueType.BINARY) {
      throw ArchiveException.of(shard, record() + " has a " + KEY + " that is " + article(type) + ", not a string");
    }
    String recordKey = readString(KEY);
    if (!RecordKeys.of(recordKey + ".x").equals(recordKey)) {
      throw ArchiveException.of(shard, record() + " has the key '" + recordKey + "', which is not a WebDataset key "
          + "(its last path component must not contain a dot)");
    }
    return recordKey;
  }

  /** A string or binary key, decoded as strict UTF-8 and capped at the header limit. */
  private String readString(String what) throws IOException {
    ValueType type = valueType();
    int length = switch (type) {
      case STRING -> unpacker.unpackRawStringHeader();
      case BINARY -> unpacker.unpackBinaryHeader();
      default -> throw ArchiveException.of(shard, record() + " has " + article(type) + " as " + what
          + ", not a string");
    };
    if (length > limits.maxHeaderBytes()) {
      throw ArchiveException.of(shard, record() + " has " + length + " bytes as " + what + ", more than the "
          + limits.maxHeaderBytes() + " allowed");
    }
    byte[] bytes = new byte[length];
    unpacker.readPayload(bytes);
    return MemberNames.decode(shard, bytes);
  }

  private String memberName(String suffix) throws ArchiveException {
    String name = key + "." + suffix;
    if (suffix.isEmpty() || suffix.indexOf('/') >= 0) {
      throw ArchiveException.ofMember(shard, name, "its map key '" + Printable.of(suffix) + "' is not a suffix (it must be "
          + "non-empty and without '/', such as jpg or seg.png)");
    }
    if (!suffixes.add(suffix)) {
      throw ArchiveException.ofMember(shard, name, record() + " has it twice");
    }
    return MemberNames.checked(shard, name);
  }

  /**
   * The length of a member's data; one to be {@code held} (met before the record's key) is refused past the member
   * cap. One streamed may be larger: read whole ({@code readData}) it is refused then, streamed it is not, so that
   * extract takes the members create writes, which a record of up to 2047 MiB may have.
   */
  private int readValueHeader(String name, ValueType type, boolean held) throws IOException {
    if (!isData(type)) {
      throw notData(name, type);
    }
    int length = type == ValueType.BINARY ? unpacker.unpackBinaryHeader() : unpacker.unpackRawStringHeader();
    if (held && length > limits.maxMemberBytes()) {
      throw ArchiveException.tooLargeForMemory(shard, name, length, limits);
    }
    return length;
  }

  /** Reads {@code length} payload bytes in chunks, so that a corrupt length cannot allocate more than is there. */
  private static byte[] readPayload(int length, PartReader reader) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(length, CHUNK));
    byte[] chunk = new byte[Math.min(length, CHUNK)];
    for (int left = length; left > 0; ) {
      int part = Math.min(left, chunk.length);
      reader.read(chunk, part);
      out.write(chunk, 0, part);
      left -= part;
    }
    return out.toByteArray();
  }

  private interface PartReader {
    /** Fills the first {@code length} bytes of {@code buffer}. */
    void read(byte[] buffer, int length) throws IOException;
  }

  private ValueType valueType() throws IOException {
    return unpacker.getNextFormat().getValueType();
  }

  private static boolean isData(ValueType type) {
    return type == ValueType.BINARY || type == ValueType.STRING;
  }

  private ArchiveException notData(String name, ValueType type) {
    return ArchiveException.ofMember(shard, name, "its value is " + article(type) + ", not binary or a string "
        + "(members hold bytes)");
  }

  private static String article(ValueType type) {
    String name = type.name().toLowerCase(java.util.Locale.ROOT);
    return ("aeiou".indexOf(name.charAt(0)) >= 0 ? "an " : "a ") + name;
  }

  private String record() {
    return "the record at index " + recordIndex;
  }

  @Override
  public long directoriesSkipped() {
    return 0;
  }

  @Override
  public void close() throws IOException {
    unpacker.close();
  }

  /** A member whose data is read from the shared stream until the reader moves on. */
  private final class StreamedMember extends StreamMember {
    private final String name;
    private final int size;
    private int left;

    StreamedMember(String name, int size) {
      super(shard);
      this.name = name;
      this.size = size;
      this.left = size;
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
          if (left == 0) {
            return -1;
          }
          int part = Math.min(length, left);
          readPart(buffer, offset, part);
          return part;
        }
      };
    }

    @Override
    public byte[] readData() throws IOException {
      requireFitsInMemory(limits);
      open();
      return readPayload(left, (buffer, part) -> readPart(buffer, 0, part));
    }

    private void readPart(byte[] buffer, int offset, int length) throws IOException {
      try {
        unpacker.readPayload(buffer, offset, length);
        left -= length;
      } catch (SourceInput.SourceFailure e) {
        throw e.getCause();
      } catch (MessageInsufficientBufferException e) {
        throw ArchiveException.ofMember(shard, name(), "truncated: the stream ends inside the member's data", e);
      } catch (MessagePackException | IllegalArgumentException e) {
        throw ArchiveException.ofMember(shard, name(), "corrupt msgpack data: " + e.getMessage(), e);
      }
    }

    @Override
    protected void skipRest() throws IOException {
      byte[] skipped = new byte[Math.min(left, CHUNK)];
      while (left > 0) {
        readPart(skipped, 0, Math.min(left, skipped.length));
      }
    }
  }

}
