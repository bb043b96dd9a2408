package dev.quarry.core.archive.zip;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.MemberNames;
import dev.quarry.core.archive.ShardReader;
import dev.quarry.core.archive.StreamMember;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import org.apache.commons.compress.archivers.zip.AsiExtraField;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveInputStream;
import org.apache.commons.compress.archivers.zip.ZipMethod;
import org.apache.commons.compress.archivers.zip.ZipShort;

/**
 * Streams the members of a zip, stored or deflated, zip64 included, from its local headers (shards come from object
 * storage, so the central directory at the end is not sought first). Every member's size and CRC-32 are verified,
 * and inflation is capped against zip bombs: per member by the expansion ratio, per shard by the uncompressed total.
 *
 * <p>A member whose local header has no sizes (they follow its data, in a data descriptor: Python and Java writing to
 * a pipe do this) is read whole into memory when it is reached, so that its size is known before its data is handed
 * out; it may have at most {@link ArchiveLimits#maxMemberBytes()} bytes. The central directory, read past at the end,
 * is checked too: it must list the same entries, and it is where symbolic links are found (a local header has no file
 * type), so a link is refused when the reader reaches the end of the shard.
 */
public final class ZipReader implements ShardReader {
  /** Members up to this size are not held to the expansion ratio: small runs of zeros compress far beyond it. */
  static final long RATIO_FREE_BYTES = 1 << 20;
  /** How far past a stored member's data the parser may read to find its data descriptor. */
  private static final int DESCRIPTOR_SLACK = 4096;
  private static final Pattern ROOT = Pattern.compile("(\\./)+");
  private static final ZipShort UNIX_EXTRA_FIELD = new AsiExtraField().getHeaderId();
  private static final String ONLY_REGULAR_FILES =
      " (shards may hold only regular files and directories; store the file itself instead)";

  private final ZipSource source;
  private final ZipArchiveInputStream zip;
  private final String shard;
  private final ArchiveLimits limits;
  private final List<byte[]> localNames = new ArrayList<>();
  private ZipArchiveEntry lookahead;
  private boolean pastEntries;
  private boolean ended;
  private StreamMember current;
  private String lastName;
  private long directories;
  private long expanded;

  public ZipReader(InputStream in, String shard, ArchiveLimits limits) {
    this.source = new ZipSource(in);
    this.zip = new Parser(source);
    this.shard = shard;
    this.limits = limits;
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
    while (true) {
      ZipArchiveEntry entry = nextEntry();
      if (entry == null) {
        ended = true;
        return null;
      }
      String rawName = MemberNames.decode(shard, entry.getRawName());
      boolean directory = rawName.endsWith("/");
      // "./", the archive's root as some tools list it, names nothing to check.
      String name = directory && ROOT.matcher(rawName).matches() ? rawName : MemberNames.checked(shard, rawName);
      lastName = name;
      refuseUnreadable(entry, name);
      EntryData data = new EntryData(name, entry);
      if (directory) {
        directories++;
        // A directory carries no data; cap what the parser may buffer for one that claims some (a bomb in disguise).
        source.limitReads(limits.maxMemberBytes() + DESCRIPTOR_SLACK);
        try {
          data.transferTo(OutputStream.nullOutputStream());
        } catch (ZipSource.ReadLimitReached e) {
          throw data.tooLargeToHold();
        } finally {
          source.unlimitReads();
        }
        continue;
      }
      current = sizesAfterData(entry) ? bufferWhole(data) : new StreamedMember(data);
      return current;
    }
  }

  /** The next entry of the stream, checking the central directory once there is none. */
  private ZipArchiveEntry nextEntry() throws IOException {
    if (lookahead != null) {
      ZipArchiveEntry entry = lookahead;
      lookahead = null;
      return entry;
    }
    if (pastEntries) {
      return null;
    }
    source.startKeeping();
    ZipArchiveEntry entry;
    try {
      entry = zip.getNextEntry();
    } catch (IOException | RuntimeException e) {
      throw translate(e, null);
    }
    if (entry == null) {
      pastEntries = true;
      CentralDirectory.check(shard, source.kept(), localNames);
      source.stopKeeping();
      return null;
    }
    source.stopKeeping();
    localNames.add(entry.getRawName());
    return entry;
  }

  private void refuseUnreadable(ZipArchiveEntry entry, String name) throws ArchiveException {
    if (entry.getGeneralPurposeBit().usesEncryption()) {
      throw ArchiveException.ofMember(shard, name, "it is encrypted (Quarry reads only unencrypted members)");
    }
    int method = entry.getMethod();
    if (method != ZipMethod.STORED.getCode() && method != ZipMethod.DEFLATED.getCode()) {
      ZipMethod known = ZipMethod.getMethodByCode(method);
      throw ArchiveException.ofMember(shard, name, "it is compressed with " + (known == null ? "an unknown method"
          : known.name()) + " (method " + method + "); Quarry reads only stored and deflated members");
    }
    if (entry.getExtraField(UNIX_EXTRA_FIELD) instanceof AsiExtraField unix && unix.isLink()) {
      throw ArchiveException.ofMember(shard, name, "it is a symbolic link" + ONLY_REGULAR_FILES);
    }
  }

  private static boolean sizesAfterData(ZipArchiveEntry entry) {
    return entry.getGeneralPurposeBit().usesDataDescriptor() || entry.getSize() < 0;
  }

  /**
   * Reads a member whose sizes follow its data whole, then reads on to the next entry's header, which makes the
   * parser read the data descriptor, so that the member's size and CRC-32 are verified before it is handed out.
   */
  private StreamMember bufferWhole(EntryData data) throws IOException {
    byte[] bytes;
    // The parser itself buffers a stored member with a data descriptor whole while it looks for the descriptor.
    source.limitReads(limits.maxMemberBytes() + DESCRIPTOR_SLACK);
    try {
      bytes = data.readAllBytes();
    } catch (ZipSource.ReadLimitReached e) {
      throw data.tooLargeToHold();
    } finally {
      source.unlimitReads();
    }
    lookahead = nextEntry();
    data.verify();
    return StreamMember.held(shard, data.name, bytes);
  }

  /** Source failures unchanged; anything else the parser throws as an archive error naming the shard. */
  private IOException translate(Exception e, String member) {
    if (e instanceof ZipSource.SourceFailure failure) {
      return failure.getCause();
    }
    if (e instanceof ArchiveException archive) {
      return archive;
    }
    boolean truncated = e instanceof EOFException || String.valueOf(e.getMessage()).contains("Truncated");
    if (member != null) {
      return ArchiveException.ofMember(shard, member, truncated
          ? "truncated: the stream ends inside the member's data" : "corrupt zip data: " + parserMessage(e), e);
    }
    String where = lastName == null ? "" : " after member " + lastName;
    return ArchiveException.of(shard, truncated
        ? "truncated: the stream ends inside the zip's headers or central directory" + where
        : "corrupt zip data" + where + ": " + parserMessage(e), e);
  }

  /** The parser's message, without its advice to use its random-access reader, which a stream cannot use. */
  private static String parserMessage(Exception e) {
    String message = String.valueOf(e.getMessage());
    int advice = message.indexOf(". Either the archive is broken");
    if (advice >= 0) {
      return message.substring(0, advice) + " (a stored member whose size follows its data must not contain a zip "
          + "signature, or the data is corrupt)";
    }
    return message;
  }

  @Override
  public long directoriesSkipped() {
    return directories;
  }

  @Override
  public void close() throws IOException {
    zip.close();
  }

  /**
   * Commons Compress's streaming parser: UTF-8 for names without the UTF-8 flag, no Unicode extra fields (names are
   * taken raw and must be UTF-8), stored members with data descriptors allowed (Python writes them), a split marker
   * at the start skipped.
   */
  private static final class Parser extends ZipArchiveInputStream {
    Parser(InputStream in) {
      super(in, "UTF-8", false, true, true);
    }

    /** Zstandard members are refused by name before they are read; the codec, an optional library, is not loaded. */
    @Override
    protected InputStream createZstdInputStream(InputStream in) {
      return InputStream.nullInputStream();
    }
  }

  /**
   * An entry's data as the parser inflates it, checked as it goes: against the declared size, the member and shard
   * caps and the expansion ratio, and at its end against the declared sizes and CRC-32.
   */
  private final class EntryData extends InputStream {
    private final String name;
    private final ZipArchiveEntry entry;
    private final CRC32 crc = new CRC32();
    private long produced;
    private long consumed = -1;
    private boolean done;

    EntryData(String name, ZipArchiveEntry entry) {
      this.name = name;
      this.entry = entry;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      if (done) {
        return -1;
      }
      if (length == 0) {
        return 0;
      }
      int read = 0;
      for (int attempts = 0; read == 0; attempts++) {
        if (attempts == 1000) {
          throw ArchiveException.ofMember(shard, name, "corrupt zip data: the parser makes no progress");
        }
        try {
          read = zip.read(buffer, offset, length);
        } catch (ZipSource.ReadLimitReached e) {
          throw e;
        } catch (IOException | RuntimeException e) {
          throw translate(e, name);
        }
      }
      if (read < 0) {
        done = true;
        consumed = zip.getCompressedCount();
        verify();
        return -1;
      }
      crc.update(buffer, offset, read);
      produced += read;
      expanded += read;
      checkCaps();
      return read;
    }

    private void checkCaps() throws ArchiveException {
      long declared = entry.getSize();
      if (declared >= 0 && !entry.getGeneralPurposeBit().usesDataDescriptor() && produced > declared) {
        throw ArchiveException.ofMember(shard, name, "corrupt zip data: it has more than the " + declared
            + " bytes its header declares");
      }
      if (sizesAfterData(entry) && produced > limits.maxMemberBytes()) {
        throw tooLargeToHold();
      }
      if (expanded > limits.maxUncompressedBytes()) {
        throw ArchiveException.of(shard, "it expands to more than " + limits.maxUncompressedBytes()
            + " bytes (a decompression bomb, or raise the limit)");
      }
      if (produced > RATIO_FREE_BYTES && entry.getMethod() == ZipMethod.DEFLATED.getCode()) {
        long compressed = Math.max(1, zip.getCompressedCount());
        if (produced > compressed * limits.maxExpansionRatio()) {
          throw ArchiveException.ofMember(shard, name, "it expands more than " + limits.maxExpansionRatio()
              + " times (" + produced + " bytes from " + compressed + " compressed bytes): a zip bomb, or raise the "
              + "expansion ratio limit");
        }
      }
    }

    /** Compares what was read with the sizes and CRC-32 the entry declares, as far as they are known yet. */
    void verify() throws ArchiveException {
      if (!done) {
        return;
      }
      if (entry.getSize() >= 0 && produced != entry.getSize()) {
        throw ArchiveException.ofMember(shard, name, "corrupt zip data: it has " + produced + " bytes, not the "
            + entry.getSize() + " its header declares");
      }
      if (entry.getMethod() == ZipMethod.STORED.getCode() && entry.getCompressedSize() >= 0 && entry.getSize() >= 0
          && entry.getCompressedSize() != entry.getSize()) {
        throw ArchiveException.ofMember(shard, name, "corrupt zip data: it is stored, yet its header declares "
            + entry.getCompressedSize() + " compressed bytes for " + entry.getSize() + " bytes");
      }
      if (entry.getMethod() == ZipMethod.DEFLATED.getCode() && entry.getCompressedSize() >= 0
          && consumed != entry.getCompressedSize()) {
        throw ArchiveException.ofMember(shard, name, "corrupt zip data: its compressed data has " + consumed
            + " bytes, not the " + entry.getCompressedSize() + " its header declares");
      }
      if (entry.getCrc() >= 0 && crc.getValue() != entry.getCrc()) {
        throw ArchiveException.ofMember(shard, name, String.format(
            "corrupt zip data: its CRC-32 is %08x, not the %08x its header declares", crc.getValue(), entry.getCrc()));
      }
    }

    ArchiveException tooLargeToHold() {
      return ArchiveException.ofMember(shard, name, "it has no size in its local header, so it is read whole into "
          + "memory, and it has more than the " + limits.maxMemberBytes() + " bytes a member may have in memory");
    }
  }

  /** A member whose local header gives its size: its data streams. */
  private final class StreamedMember extends StreamMember {
    private final EntryData data;

    StreamedMember(EntryData data) {
      super(shard);
      this.data = data;
    }

    @Override
    public String name() {
      return data.name;
    }

    @Override
    public long size() {
      return data.entry.getSize();
    }

    @Override
    public InputStream data() {
      open();
      return data;
    }

    @Override
    public byte[] readData() throws IOException {
      requireFitsInMemory(limits);
      // Read to the end rather than into an array of the declared size: a corrupt header must not allocate.
      try (InputStream stream = data()) {
        return stream.readAllBytes();
      }
    }

    /** Reads the rest, so that it is verified and the stream moves past it. */
    @Override
    protected void skipRest() throws IOException {
      data.transferTo(OutputStream.nullOutputStream());
    }
  }
}
