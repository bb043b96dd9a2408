package dev.quarry.core.sort.plan;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.sort.extract.SegmentTable;
import dev.quarry.core.store.ObjectStore;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where partitions' segments are in the extract workers' packs, each pack's row of a partition read once (a ranged GET
 * of 16 bytes) however many readers of the worker ask: a create worker of a content or none order fetches its segments
 * and locates its entries in them, and read each row twice before, the second time one request per extract worker in a
 * row.
 */
public final class PackSegments {
  private final ObjectStore store;
  private final List<PlanSummary.ExtractPack> packs;
  private final Map<Row, SegmentTable.Segment> read = new ConcurrentHashMap<>();

  private record Row(int worker, int partition) {}

  public PackSegments(ObjectStore store, List<PlanSummary.ExtractPack> packs) {
    this.store = store;
    this.packs = packs;
  }

  public List<PlanSummary.ExtractPack> packs() {
    return packs;
  }

  /** The extract workers that wrote a pack. */
  public List<Integer> workersWithPacks() {
    return InFlight.indexes(packs.size()).stream().filter(worker -> packs.get(worker).pack() != null).toList();
  }

  /** Partition {@code partition}'s segment of extract worker {@code worker}'s pack, which it must have written. */
  public SegmentTable.Segment of(int worker, int partition) throws IOException {
    Row row = new Row(worker, partition);
    SegmentTable.Segment segment = read.get(row);
    if (segment == null) {
      PlanSummary.ExtractPack pack = packs.get(worker);
      segment = SegmentTable.segment(store, pack.pack(), pack.recordBytes(), partition);
      read.putIfAbsent(row, segment);
    }
    return segment;
  }

  /**
   * Reads partition {@code partition}'s row of every pack, {@value InFlight#SORT_REQUESTS} at once, for {@link #of}.
   */
  public void readAll(int partition) throws IOException {
    InFlight.all(workersWithPacks(), InFlight.SORT_REQUESTS, worker -> of(worker, partition));
  }
}
