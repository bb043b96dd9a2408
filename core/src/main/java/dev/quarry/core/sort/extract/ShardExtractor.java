package dev.quarry.core.sort.extract;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.RawRange;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.ShardReader;
import dev.quarry.core.archive.ShardReaders;
import dev.quarry.core.archive.compress.Compression;
import dev.quarry.core.archive.tar.CopyingInput;
import dev.quarry.core.archive.tar.TarReader;
import dev.quarry.core.archive.tar.TarWriter;
import dev.quarry.core.policy.Problems;
import dev.quarry.core.sort.input.InputShard;
import dev.quarry.core.sort.order.ContentKeys;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.text.Printable;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import org.apache.commons.io.function.IOConsumer;
import org.apache.commons.io.output.CloseShieldOutputStream;

/**
 * Reads one input shard and emits an entry per record. A plain tar is only parsed: its records stay where they are,
 * as raw ranges of the input object. Any other shard is turned into a pack of raw tar bytes while it is read (a
 * compressed tar's decompressed stream as it is, zip and msgpack records re-encoded by {@link TarWriter}); the
 * {@link Packing} says which plain tars are packed too.
 */
final class ShardExtractor {
  /** The problem kind counted for a content key member that is missing or does not parse. */
  static final String CONTENT_KEY_MISSING = "contentKeyMissing";
  /** The problem kind counted for a member name repeated inside one shard. */
  static final String DUPLICATE_MEMBER = "duplicateMember";

  private final SortSpec spec;
  private final PackStore packs;
  private final Packing packing;
  private final Problems problems;
  private final Path workFolder;
  private final long groupingBytes;

  /** Which plain tars are packed as they are read (every other format always is). */
  enum Packing {
    /**
     * Those create cannot read again where they are (ExtractPhase decides): any the run's shards may replace (in the
     * output's folder: a committed output sorted again in place, with overwrite), and, in one process, any but a
     * local file ({@link dev.quarry.core.store.ObjectStore#isLocal}), which create reads again at no more cost than a
     * copy held in memory and without filling that memory (the 2 GiB benchmark: 2.3 GiB resident, and 2 to 3 CPU
     * seconds more on a loaded machine; docs/development.md). Phases in separate workers read the others from the
     * input objects.
     */
    TARS_NOT_READABLE_AGAIN,
    /** All: records go to partition packs, which create workers read instead of the inputs. */
    ALL_TARS
  }

  /**
   * {@code groupingBytes}: the heap one shard's grouping holds before it spills into {@code workFolder}
   * ({@link RecordGrouping}).
   */
  ShardExtractor(SortSpec spec, PackStore packs, Packing packing, Problems problems, Path workFolder,
      long groupingBytes) {
    this.spec = spec;
    this.workFolder = workFolder;
    this.groupingBytes = groupingBytes;
    this.packs = packs;
    this.packing = packing;
    this.problems = problems;
  }

  /**
   * Reads {@code shard} from {@code in}, which it closes ({@code readableAgain}: create can read it again where it
   * is), and groups its records; the result gives them.
   */
  ExtractedShard extract(InputShard shard, InputStream in, boolean readableAgain) throws IOException {
    CountingStream counted = new CountingStream(in);
    String name = shard.url();
    ShardFormat format = shard.format();
    RecordGrouping grouping = new RecordGrouping(name, workFolder, groupingBytes,
        member -> duplicateMember(name, member));
    boolean packed = true;
    try (counted) {
      if (format == ShardFormat.TAR && !packs(readableAgain)) {
        packed = false;
        group(shard, new TarReader(counted, name, ArchiveLimits.DEFAULT), WHERE_THEY_ARE, grouping);
      } else if (format.isTar()) {
        try (PackStore.PackOutput pack = packs.create(shard.index())) {
          InputStream tar = switch (format) {
            case TAR_GZ -> Compression.gunzip(counted, name, ArchiveLimits.DEFAULT);
            case TAR_LZ4 -> Compression.unlz4(counted, name, ArchiveLimits.DEFAULT);
            default -> counted;
          };
          group(shard, new TarReader(new CopyingInput(tar, pack.stream(), 1 << 16), name, ArchiveLimits.DEFAULT),
              WHERE_THEY_ARE, grouping);
          pack.commit();
        }
      } else {
        repack(shard, ShardReaders.open(format, counted, name, ArchiveLimits.DEFAULT), grouping);
      }
    } catch (IOException | RuntimeException | Error e) {
      try {
        grouping.close();
      } catch (IOException | RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    return new ExtractedShard(shard, packed, counted.count, grouping);
  }

  /**
   * A shard read, its records grouped (spilled to the worker's disk past the grouping's share of the budget) and
   * given to {@link #records}; closing it deletes what was spilled.
   */
  final class ExtractedShard implements AutoCloseable {
    private final InputShard shard;
    private final boolean packed;
    private final long inputBytes;
    private final RecordGrouping grouping;

    private ExtractedShard(InputShard shard, boolean packed, long inputBytes, RecordGrouping grouping) {
      this.shard = shard;
      this.packed = packed;
      this.inputBytes = inputBytes;
      this.grouping = grouping;
    }

    /** The input bytes read. */
    long inputBytes() {
      return inputBytes;
    }

    /** Whether its grouping outgrew its share of the budget and spilled to the worker's disk. */
    boolean groupedOnDisk() {
      return grouping.spills() > 0;
    }

    /**
     * Gives an entry per record, in key order, each with the ordinal of its first member in the shard as its
     * position (so in the order of their first members); once.
     */
    void records(IOConsumer<RecordEntry> entries) throws IOException {
      String name = shard.url();
      grouping.finish(record -> entries.accept(new RecordEntry(record.key, shard.index(), record.position, packed,
          record.ranges(), record.size, contentKey(name, record.key, record.contentMember(), record.content))));
    }

    @Override
    public void close() throws IOException {
      grouping.close();
    }
  }

  private boolean packs(boolean readableAgain) {
    return switch (packing) {
      case TARS_NOT_READABLE_AGAIN -> !readableAgain;
      case ALL_TARS -> true;
    };
  }

  /**
   * Re-encodes a zip or msgpack shard as a tar pack, member by member as they are read, so that no more than a
   * member's data is held: a record's members go into the pack in the order the shard has them (interleaved when the
   * shard interleaves them) and its entry lists their ranges, as a tar's does. Its raw bytes, those ranges in order,
   * are the record written whole. Grouped whole first, an extract worker held each of its shards in flight in the heap,
   * 4 at once ({@code RepackedShardHeapTest}: two zips of 96 MiB ran a 64 MiB heap out).
   */
  private void repack(InputShard shard, ShardReader reader, RecordGrouping grouping) throws IOException {
    try (PackStore.PackOutput pack = packs.create(shard.index())) {
      // The writer's close ends the archive; the pack, not the writer, owns the stream.
      TarWriter writer = new TarWriter(CloseShieldOutputStream.wrap(pack.stream()));
      group(shard, reader, (member, content) -> {
        long start = writer.bytesWritten();
        if (content != null) {
          writer.writeMember(member.name(), content);
        } else {
          writer.writeMember(member.name(), member.size(), member.data());
        }
        return new RawRange(start, writer.bytesWritten() - start);
      }, grouping);
      writer.close(); // the end-of-archive blocks make the pack a valid tar on its own
      pack.commit();
    }
  }

  /** Where a member's raw tar bytes lie, given its data when it is the content key member (else null). */
  private interface Placement {
    RawRange place(ArchiveMember member, byte[] content) throws IOException;
  }

  /** A tar's members stay where they are: in the input, or in its pack as it is copied there. */
  private static final Placement WHERE_THEY_ARE = (member, content) -> member.raw();

  /**
   * Groups the shard's members into records by WebDataset's rule ({@link RecordGrouping}), each placed by
   * {@code placement} (left where it is in a tar, written into the pack otherwise), reading data only of the content
   * key member; a member name seen before is a duplicate, handled by policy.
   */
  private void group(InputShard shard, ShardReader reader, Placement placement, RecordGrouping grouping)
      throws IOException {
    try (reader) {
      for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
        RecordGrouping.Joining joining = grouping.joining(member.name());
        if (joining == null) {
          continue; // a duplicate, handled by policy
        }
        // Before its data is read: a tar member's raw bytes, headers included, or at least its data.
        grouping.checkRoom(joining, member.raw() != null ? member.raw().length() : member.size());
        byte[] content = isContentMember(member.name()) ? member.readData() : null;
        grouping.add(joining, placement.place(member, content), content);
      }
    }
  }

  private void duplicateMember(String shard, String member) throws ArchiveException {
    problems.report(spec.policies().duplicatedRecords(), DUPLICATE_MEMBER,
        "member " + Printable.of(member) + " appears more than once in shard " + Printable.of(shard)
            + "; kept the first",
        () -> ArchiveException.ofMember(shard, member, "it appears more than once in the shard (policy"
            + " duplicatedRecords is abort; set it to warn or ignore to keep the first occurrence)"));
  }

  private boolean isContentMember(String memberName) {
    return ContentKeys.isMember(spec.order().content(), memberName);
  }

  /** The parsed content key, or null (sorted last) when missing or malformed under an ignore or warn policy. */
  private Object contentKey(String shard, String key, String member, byte[] data) throws IOException {
    SortSpec.ContentKey content = spec.order().content();
    if (content == null) {
      return null;
    }
    String problem;
    if (data == null) {
      problem = "record " + Printable.of(key) + " of shard " + Printable.of(shard) + " has no ."
          + content.member() + " member";
    } else {
      try {
        return ContentKeys.parse(content, data);
      } catch (NumberFormatException e) {
        // The text itself is object content, which never goes into a message or a job's status.
        problem = "member " + Printable.of(member) + " of shard " + Printable.of(shard) + " does not hold "
            + (content.type() == SortSpec.ContentType.INT ? "an integer" : "a number");
      }
    }
    String message = problem;
    problems.report(spec.policies().contentKeyMissing(), CONTENT_KEY_MISSING, message + "; sorted it last",
        () -> new ArchiveException(shard, "Cannot sort by content: " + message + " (policy contentKeyMissing is"
            + " abort; set it to warn or ignore to sort such records last)"));
    return null;
  }

  /** Counts the bytes read from the input object. */
  private static final class CountingStream extends FilterInputStream {
    long count;

    CountingStream(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        count++;
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int read = in.read(buffer, offset, length);
      if (read > 0) {
        count += read;
      }
      return read;
    }

    @Override
    public long skip(long n) throws IOException {
      long skipped = in.skip(n);
      count += skipped;
      return skipped;
    }
  }
}
