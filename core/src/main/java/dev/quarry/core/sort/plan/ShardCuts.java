package dev.quarry.core.sort.plan;

import dev.quarry.core.sort.spec.SortSpec;

/**
 * Where the output shards of one template end, as a function of a record's place in the template's order alone, so
 * that each partition cuts its own records and the shards are the same however the records were partitioned. By
 * records per shard, shard {@code i / n} holds record {@code i}; with a shard count, the first {@code total % count}
 * shards take one record more; by byte size {@code S}, a record belongs to shard {@code floor(start / S)}, where its
 * start is the sum of the records before it, each counted at most {@code S} bytes (so no shard is ever empty, and a
 * shard holds about {@code S} bytes: its records start in a window of {@code S}).
 */
public final class ShardCuts {
  private final long recordsPerShard;
  private final long shardSize;
  private final long shardCount;
  private final long totalRecords;

  private ShardCuts(long recordsPerShard, long shardSize, long shardCount, long totalRecords) {
    this.recordsPerShard = recordsPerShard;
    this.shardSize = shardSize;
    this.shardCount = shardCount;
    this.totalRecords = totalRecords;
  }

  /** The cuts of a template of {@code totalRecords} records (used only with a shard count). */
  public static ShardCuts of(SortSpec.Output output, long totalRecords) {
    return new ShardCuts(output.recordsPerShard() == null ? 0 : output.recordsPerShard(), output.shardSizeBytes(),
        output.shardCount() == null ? 0 : output.shardCount(), totalRecords);
  }

  /** The bytes a record of {@code size} adds to the start of the next one: see the class comment. */
  public static long span(long size, long shardSize) {
    return shardSize > 0 ? Math.min(size, shardSize) : size;
  }

  /**
   * How many shards the template has, {@code lastStart} being its last record's start; refuses a shard count above
   * the record count. A template without records has none.
   */
  public long shards(long lastStart) {
    if (totalRecords == 0) {
      return 0;
    }
    if (recordsPerShard > 0) {
      return (totalRecords + recordsPerShard - 1) / recordsPerShard;
    }
    if (shardSize > 0) {
      return lastStart / shardSize + 1;
    }
    if (totalRecords < shardCount) {
      throw new IllegalArgumentException("Cannot plan " + shardCount + " shards: there are only " + totalRecords
          + " records (lower shardCount, or size shards by records or bytes)");
    }
    return shardCount;
  }

  /** The shard of the template's record number {@code record}, which starts at {@code start} (see the class). */
  public long shardOf(long record, long start) {
    if (recordsPerShard > 0) {
      return record / recordsPerShard;
    }
    if (shardSize > 0) {
      return start / shardSize;
    }
    long small = totalRecords / shardCount;
    long larger = totalRecords % shardCount;
    long inLarger = larger * (small + 1);
    return record < inLarger ? record / (small + 1) : larger + (record - inLarger) / small;
  }
}
