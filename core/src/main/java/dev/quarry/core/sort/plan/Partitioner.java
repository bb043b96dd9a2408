package dev.quarry.core.sort.plan;

import dev.quarry.core.sort.order.KeyOrder;
import dev.quarry.core.sort.order.RecordOrders;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import java.util.List;

/**
 * Which partition a record goes to, so that the job's order is the partitions' orders one after the other and every
 * copy of a key meets in one partition. Shuffle and md5 split the 64-bit rank the order compares first (the XXHash or
 * the MD5's first 8 bytes) into equal ranges: no sample is needed, and a key's copies share their rank. Alphanumeric
 * splits keys at splitters ({@link KeySample}), partition 0 holding the first keys in the job's direction. The other
 * orders keep every record in partition 0 (the others stay empty), which is right whatever the keys: their records
 * are ordered by one process, as before partitions.
 */
public final class Partitioner {
  private final SortSpec.Order order;
  private final int partitions;
  private final List<String> splitters;
  private final boolean spreads;

  /** {@code splitters}: for alphanumeric order, the keys that start partitions 1, 2, ... in key order. */
  public Partitioner(SortSpec.Order order, int partitions, List<String> splitters) {
    if (partitions < 1) {
      throw new IllegalArgumentException("Invalid partition count: " + partitions + " (must be at least 1)");
    }
    this.order = order;
    this.partitions = partitions;
    this.splitters = order.kind() == OrderKind.ALPHANUMERIC && splitters != null
        && splitters.size() < partitions ? List.copyOf(splitters) : List.of();
    this.spreads = partitions > 1 && (order.kind() == OrderKind.SHUFFLE || order.kind() == OrderKind.MD5
        || !this.splitters.isEmpty());
  }

  /** Whether the order's partitions are cut by keys sampled from the input. */
  public static boolean usesSplitters(SortSpec.Order order) {
    return order.kind() == OrderKind.ALPHANUMERIC;
  }

  public int partitions() {
    return partitions;
  }

  /** Whether records spread over the partitions; otherwise all are in partition 0. */
  public boolean spreads() {
    return spreads;
  }

  /**
   * The record's partition: for shuffle and md5 the rank's range, {@code floor(rank * partitions / 2^64)}, rank
   * unsigned; for alphanumeric the number of splitters at or below the key (reversed when descending).
   */
  public int partitionOf(RecordEntry entry) {
    if (!spreads) {
      return 0;
    }
    if (!splitters.isEmpty()) {
      int low = 0; // the number of splitters at or below the key
      int high = splitters.size();
      while (low < high) {
        int middle = (low + high) >>> 1;
        if (KeyOrder.compareKeys(splitters.get(middle), entry.key()) <= 0) {
          low = middle + 1;
        } else {
          high = middle;
        }
      }
      return order.isDescending() ? splitters.size() - low : low;
    }
    long rank = (Long) RecordOrders.ranked(order, entry).contentKey();
    return (int) Math.unsignedMultiplyHigh(rank, partitions);
  }
}
