package dev.quarry.core.sort.plan;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.StoredJson;
import dev.quarry.core.sort.extract.SegmentTable;
import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectStore;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where partitions' segments are in the extract workers' packs. The plan reads every pack's segment table whole (to
 * check it) and writes each partition's column, its segment of every pack, as one small document ({@link #write},
 * {@code Scratch#planSegments}); a create worker reads the column of its partition once ({@link #written}), however
 * many of its readers ask. So no one but the plan reads a pack's table: before, a partition step of a key order and a
 * create worker each read the 16 bytes of their partition's row of every pack (two GETs per extract worker and
 * partition, 2 M at 1,000 extract and 1,000 create workers, where the columns are 1,000 PUTs and 1,000 GETs), and a
 * step now leaves its entries as extract wrote them, from their segment's start, for the create worker to locate
 * ({@link PackedEntries}).
 */
public final class PackSegments {
  private final List<PlanSummary.ExtractPack> packs;
  private final Columns columns;
  private final Map<Integer, List<SegmentTable.Segment>> read = new ConcurrentHashMap<>();
  /** Held while a column is read: readers of one partition at once (a fetch's 16) wait for the one read. */
  private final ReentrantLock reading = new ReentrantLock();

  /**
   * Writes partition p's column for each of the {@code partitions}, from the packs' {@code tables} (each worker's
   * segment table, null for one that wrote no pack), {@value InFlight#SORT_REQUESTS} at once; nothing when no worker
   * wrote a pack.
   */
  public static void write(ObjectStore store, Scratch scratch, long[][] tables, int partitions) throws IOException {
    if (Arrays.stream(tables).allMatch(Objects::isNull)) {
      return;
    }
    InFlight.all(InFlight.indexes(partitions), InFlight.SORT_REQUESTS, partition -> {
      List<SegmentTable.Segment> column = Arrays.stream(tables)
          .map(table -> table == null ? null : new SegmentTable.Segment(table[partition], table[partition + 1]))
          .toList();
      StoredJson.write(store, scratch.planSegments(partition), column);
    });
  }

  /**
   * The columns the plan wrote ({@link #write}). One that is missing is refused: the plan, once done, does not run
   * again, so only a new job writes it.
   */
  public static Columns written(ObjectStore store, Scratch scratch) {
    return partition -> {
      String key = scratch.planSegments(partition);
      try {
        return Arrays.asList(StoredJson.read(store, key, SegmentTable.Segment[].class,
            "clean the scratch and sort again"));
      } catch (NoSuchObjectException e) {
        throw new IllegalStateException("Cannot read partition " + partition + " of the extract workers' packs: "
            + store.url(key) + ", which the plan wrote, is gone (the scratch was changed; clean it and sort again)");
      }
    };
  }

  /** Where a partition's column comes from. */
  @FunctionalInterface
  public interface Columns {
    /** Partition {@code partition}'s segment of each extract worker's pack, in worker order (null for no pack). */
    List<SegmentTable.Segment> of(int partition) throws IOException;
  }

  public PackSegments(List<PlanSummary.ExtractPack> packs, Columns columns) {
    this.packs = packs;
    this.columns = columns;
  }

  public List<PlanSummary.ExtractPack> packs() {
    return packs;
  }

  /** Whether any extract worker wrote a pack: the records spread over the partitions. */
  public boolean spread() {
    return packs.stream().anyMatch(pack -> pack.pack() != null);
  }

  /** The extract workers that wrote a pack. */
  public List<Integer> workersWithPacks() {
    return InFlight.indexes(packs.size()).stream().filter(worker -> packs.get(worker).pack() != null).toList();
  }

  /** Partition {@code partition}'s segment of extract worker {@code worker}'s pack, which it must have written. */
  public SegmentTable.Segment of(int worker, int partition) throws IOException {
    List<SegmentTable.Segment> column = read.get(partition);
    if (column == null) {
      reading.lock();
      try {
        column = read.get(partition);
        if (column == null) {
          column = checked(columns.of(partition), partition);
          read.put(partition, column);
        }
      } finally {
        reading.unlock();
      }
    }
    return column.get(worker);
  }

  /**
   * Refuses a column that is not a segment within the records of each pack and none where there is no pack: what a
   * document read back says is where a reader reads.
   */
  private List<SegmentTable.Segment> checked(List<SegmentTable.Segment> column, int partition) {
    boolean valid = column != null && column.size() == packs.size();
    for (int worker = 0; valid && worker < packs.size(); worker++) {
      PlanSummary.ExtractPack pack = packs.get(worker);
      SegmentTable.Segment segment = column.get(worker);
      valid = pack.pack() == null ? segment == null
          : segment != null && segment.start() >= 0 && segment.start() <= segment.end()
              && segment.end() <= pack.recordBytes();
    }
    if (!valid) {
      throw new IllegalStateException("Cannot read partition " + partition + " of the extract workers' packs: the"
          + " plan's segments of it are not one within each pack (the scratch was changed; clean it and sort"
          + " again)");
    }
    return column.stream().toList(); // a copy, nulls kept
  }
}
