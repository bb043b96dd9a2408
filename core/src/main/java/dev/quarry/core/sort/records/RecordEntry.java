package dev.quarry.core.sort.records;

import dev.quarry.core.archive.RawRange;
import java.util.List;

/**
 * What the sort knows of one record: its key, where it came from, and where its raw tar bytes are. The bytes lie
 * either in the input shard itself (a plain tar) or in that shard's pack (every other format, re-encoded as tar, or
 * any shard in local mode); either way {@code ranges} are offsets in an uncompressed tar stream.
 *
 * @param shard index of the input shard in the job's input list
 * @param position the record's index within its shard, in stream order
 * @param packed whether the ranges point into the shard's pack rather than the input object
 * @param size the record's raw tar bytes: headers, data and padding of its members
 * @param contentKey the parsed content key (Long, Double or String), or null when the order does not use one or the
 *     member was missing; in the plan, the record's template for a key map and its rank for shuffle and md5
 * @param segment when records spread over partitions, the partition whose segment of its extract worker's pack holds
 *     its bytes: a content or none order's extract runs are split by key hash, not by that partition
 *     ({@code Partitioner}), so the entry carries it; 0 otherwise
 */
public record RecordEntry(String key, int shard, int position, boolean packed, List<RawRange> ranges, long size,
    Object contentKey, int segment) {

  /**
   * The most raw tar bytes one record may have: create writes every member of another format than tar with a size
   * under 2 GiB (a zip member's 32-bit sizes, as the writer makes them, and a Java array where a record is held), so a
   * record must stay under 2 GiB; 1 MiB below it leaves room for the arrays' own limits.
   */
  public static final long MAX_SIZE = (1L << 31) - (1L << 20);

  public RecordEntry {
    ranges = List.copyOf(ranges);
  }

  /** An entry of segment 0. */
  public RecordEntry(String key, int shard, int position, boolean packed, List<RawRange> ranges, long size,
      Object contentKey) {
    this(key, shard, position, packed, ranges, size, contentKey, 0);
  }

  /** This entry with another content key. */
  public RecordEntry withContentKey(Object key) {
    return new RecordEntry(this.key, shard, position, packed, ranges, size, key, segment);
  }

  /** Rough heap bytes this entry takes, for memory budgets. */
  public long estimatedHeapBytes() {
    return 96 + 2L * key.length() + 48L * ranges.size() + (contentKey instanceof String s ? 48 + 2L * s.length() : 24);
  }
}
