package dev.quarry.core.sort.plan;

import dev.quarry.core.sort.spec.SortSpec;

/**
 * Decides where output shards end, given records in their final order. By records per shard; by byte size, closing
 * a shard at the first record that brings it to the size or beyond (records are never split, so a shard overshoots
 * by less than one record); or into exactly N shards whose record counts differ by at most one.
 */
final class ShardCutter {
  private final long recordsPerShard;
  private final long shardSize;
  private final long shardCount;
  private final long totalRecords;
  private long shardIndex;
  private long recordsInShard;
  private long bytesInShard;

  /** {@code totalRecords} is needed only for shard counts. */
  ShardCutter(SortSpec.Output output, long totalRecords) {
    this.recordsPerShard = output.recordsPerShard() == null ? 0 : output.recordsPerShard();
    this.shardSize = output.shardSizeBytes();
    this.shardCount = output.shardCount() == null ? 0 : output.shardCount();
    this.totalRecords = totalRecords;
    if (shardCount > 0 && totalRecords < shardCount) {
      throw new IllegalArgumentException("Cannot plan " + shardCount + " shards: there are only " + totalRecords
          + " records (lower shardCount, or size shards by records or bytes)");
    }
  }

  /** Adds a record; returns true when it is the last record of its shard. */
  boolean add(long recordBytes) {
    recordsInShard++;
    bytesInShard += recordBytes;
    boolean full;
    if (recordsPerShard > 0) {
      full = recordsInShard >= recordsPerShard;
    } else if (shardSize > 0) {
      full = bytesInShard >= shardSize;
    } else {
      full = recordsInShard >= recordsOfShard(shardIndex);
    }
    if (full) {
      shardIndex++;
      recordsInShard = 0;
      bytesInShard = 0;
    }
    return full;
  }

  /** With a shard count: the first {@code total % count} shards take one record more. */
  private long recordsOfShard(long index) {
    return totalRecords / shardCount + (index < totalRecords % shardCount ? 1 : 0);
  }
}
