package dev.quarry.core.sort.plan;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.sort.extract.SegmentTable;
import dev.quarry.core.sort.records.RecordEntry;
import java.io.IOException;
import java.util.List;

/**
 * Makes an extract worker's packed entries point into its pack: an extract run's entry gives its bytes from the start
 * of the segment {@link RecordEntry#segment} names, and every partition step leaves them so. The create worker of a
 * partition locates them from the partition's segments the plan wrote ({@link PackSegments}), which its fetch of the
 * segments reads too: no step reads a pack's segment table (a step of a key-hash range holds entries of every segment,
 * and would read every pack's whole table).
 */
public final class PackedEntries {
  private final PackSegments segments;
  private final int partitions;

  public PackedEntries(PackSegments segments, int partitions) {
    this.segments = segments;
    this.partitions = partitions;
  }

  /**
   * The segment {@code entry} names, refused unless it is one of {@code partitions} (an entry read from scratch may
   * carry any number): the one place that rule is checked.
   */
  public static int segmentOf(RecordEntry entry, int partitions) {
    int segment = entry.segment();
    if (segment < 0 || segment >= partitions) {
      throw changed("record " + dev.quarry.core.text.Printable.of(entry.key()) + " names segment " + segment
          + " of a pack of " + partitions);
    }
    return segment;
  }

  /**
   * {@code entry}, an entry of partition {@code partition}'s segment, with its range made an offset in its extract
   * worker's pack if that worker wrote one; refused when it names another segment or points outside its own.
   */
  public RecordEntry located(RecordEntry entry, int partition) throws IOException {
    int worker = PlanSummary.ExtractPack.indexOf(segments.packs(), entry.shard());
    PlanSummary.ExtractPack pack = segments.packs().get(worker);
    if (pack.pack() == null || !entry.packed()) {
      return entry;
    }
    if (segmentOf(entry, partitions) != partition) {
      throw changed("record " + dev.quarry.core.text.Printable.of(entry.key()) + " of partition " + partition
          + " names segment " + entry.segment());
    }
    SegmentTable.Segment segment = segments.of(worker, partition);
    RawRange range = entry.ranges().getFirst();
    if (entry.ranges().size() != 1 || range.offset() < 0 || range.length() < 0
        || range.offset() > segment.length() - range.length()) {
      throw changed("one points outside partition " + partition + "'s segment of " + pack.pack());
    }
    return new RecordEntry(entry.key(), entry.shard(), entry.position(), true,
        List.of(new RawRange(segment.start() + range.offset(), range.length())), entry.size(),
        entry.contentKey(), entry.segment());
  }

  private static IllegalStateException changed(String what) {
    return new IllegalStateException("Cannot read the record entries: " + what + " (the scratch was changed; clean"
        + " it and sort again)");
  }
}
