package dev.quarry.core.sort.plan;

import dev.quarry.core.sort.order.RecordOrders;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;

/**
 * Which partition a record goes to, so that the job's order is the partitions' orders one after the other and every
 * copy of a key meets in one partition. Shuffle and md5 split the 64-bit rank the order compares first (the XXHash or
 * the MD5's first 8 bytes) into equal ranges: no sample is needed, and a key's copies share their rank. The other
 * orders keep every record in partition 0 (the others stay empty), which is right whatever the keys: their records
 * are ordered by one process, as before partitions.
 */
public final class Partitioner {
  private final SortSpec.Order order;
  private final int partitions;
  private final boolean spreads;

  public Partitioner(SortSpec.Order order, int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("Invalid partition count: " + partitions + " (must be at least 1)");
    }
    this.order = order;
    this.partitions = partitions;
    this.spreads = partitions > 1 && (order.kind() == OrderKind.SHUFFLE || order.kind() == OrderKind.MD5);
  }

  public int partitions() {
    return partitions;
  }

  /** Whether records spread over the partitions; otherwise all are in partition 0. */
  public boolean spreads() {
    return spreads;
  }

  /** The record's partition: the rank's range, {@code floor(rank * partitions / 2^64)}, rank unsigned. */
  public int partitionOf(RecordEntry entry) {
    if (!spreads) {
      return 0;
    }
    long rank = (Long) RecordOrders.ranked(order, entry).contentKey();
    return (int) Math.unsignedMultiplyHigh(rank, partitions);
  }
}
