package dev.quarry.core.sort.create;

import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.plan.PackSegments;
import dev.quarry.core.sort.plan.PackedEntries;
import dev.quarry.core.sort.plan.PlanSummary;
import dev.quarry.core.sort.plan.PlannedShard;
import dev.quarry.core.sort.plan.ShardCuts;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.order.RecordOrders;
import dev.quarry.core.sort.records.RunMerger;
import dev.quarry.core.sort.records.RunStorage;
import dev.quarry.core.sort.records.StoreRunStorage;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.ObjectStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The partitions' ordered entries read forward, each entry given its output shard by {@link ShardCuts} from its
 * place in its template's order: the partition's start from the plan, then counting. A create worker reads from the
 * partition of its first shard's first record, and on into the next partitions only while a shard goes on there;
 * or, {@code ownPartitionOnly}, its own partition alone, where a shard that goes on is one piece of it ({@link
 * #leading} gives the pieces of earlier partitions' shards at its start, {@link #partitionsOf} where a shard is). A
 * partition of a content or none order is the merge, in the job's order, of the lists the partition steps wrote of it
 * (those holding records of it), whose entries it locates in the packs' segments of the partition.
 */
final class OrderedEntries implements AutoCloseable {
  private final PlanSummary plan;
  private final StoreRunStorage storage;
  /** Where this worker keeps the runs of its merges' passes ({@link StoreRunStorage#ownRuns}). */
  private final RunStorage ownRuns;
  private final Scratch scratch;
  private final ShardCuts[] cuts;
  private final long[] firstShard;
  private final long shardSize;
  private final boolean ownPartitionOnly;
  /** Where the shards' entries gathered are kept. */
  private final ShardEntries.Spool spool;
  private int partition = -1;
  private RunMerger reader;
  private final Comparator<RecordEntry> order;
  private long[] records;
  private long[] starts;
  private RecordEntry pending;
  private long pendingShard;
  /**
   * Locates the entries of the partitions' lists, which the steps left from their segment's start; null when no
   * extract worker wrote a pack (no entry to locate, and none looked up on this hot path).
   */
  private final PackedEntries packedEntries;

  /** {@code segments}: the packs' segments of the partitions, which the worker's {@link RecordSource} fetches by. */
  OrderedEntries(PlanSummary plan, SortSpec spec, ObjectStore scratchStore, Scratch scratch, PackSegments segments,
      boolean ownPartitionOnly, RunStorage ownRuns, ShardEntries.Spool spool) {
    SortSpec.Output output = spec.output();
    this.spool = spool;
    this.order = RecordOrders.of(spec.order());
    this.plan = plan;
    this.ownPartitionOnly = ownPartitionOnly;
    this.storage = new StoreRunStorage(scratchStore);
    this.ownRuns = ownRuns;
    this.scratch = scratch;
    int templates = plan.templates().size();
    this.cuts = new ShardCuts[templates];
    for (int template = 0; template < templates; template++) {
      cuts[template] = ShardCuts.of(output, plan.templateRecords().get(template));
    }
    this.firstShard = plan.firstShards();
    this.shardSize = output.shardSizeBytes();
    this.packedEntries = segments.spread() ? new PackedEntries(segments, plan.partitions().size()) : null;
  }

  /**
   * The entries at the start of partition {@code partition} that belong to shards of earlier partitions, by shard
   * (in order): what of those shards goes on here. Read before {@link #of} is asked for the partition's own shards,
   * which start at {@code firstOwnShard} (Long.MAX_VALUE for none).
   */
  Map<Long, ShardEntries> leading(int partition, long firstOwnShard) throws IOException {
    Map<Long, ShardEntries> entries = new TreeMap<>();
    try {
      if (this.partition < partition) {
        open(partition);
      }
      ShardEntries current = null;
      while ((pending != null || advance()) && pendingShard < firstOwnShard) {
        current = addPending(entries.computeIfAbsent(pendingShard, index -> spool.entries()), current);
      }
      for (ShardEntries shard : entries.values()) {
        shard.finish();
      }
      return entries;
    } catch (IOException | RuntimeException e) {
      ShardEntries.closeAfter(entries.values(), e);
      throw e;
    }
  }

  /**
   * The partitions holding records of {@code shard}, in order: its own (that of its first record), then each next
   * one that starts inside it.
   */
  List<Integer> partitionsOf(PlannedShard shard) {
    List<Integer> holding = new ArrayList<>(List.of(shard.partition()));
    int template = shard.template();
    List<PlanSummary.PartitionStart> starts = plan.partitions();
    for (int next = shard.partition() + 1; next < starts.size(); next++) {
      long first = starts.get(next).records().get(template);
      long end = next + 1 < starts.size() ? starts.get(next + 1).records().get(template)
          : plan.templateRecords().get(template);
      if (end == first) {
        continue; // no record of the template
      }
      if (firstShard[template] + cuts[template].shardOf(first, starts.get(next).starts().get(template))
          != shard.index()) {
        break;
      }
      holding.add(next);
    }
    return holding;
  }

  /** The entries of each of {@code shards} (in plan order, after those asked for before), by shard index. */
  Map<Long, ShardEntries> of(List<PlannedShard> shards) throws IOException {
    Map<Long, ShardEntries> entries = new HashMap<>();
    shards.forEach(shard -> entries.put(shard.index(), spool.entries()));
    try {
      long first = shards.getFirst().index();
      long last = shards.getLast().index();
      ShardEntries current = null;
      if (partition < shards.getFirst().partition()) {
        open(shards.getFirst().partition());
      }
      while (true) {
        if (pending == null && !advance()) {
          break;
        }
        if (pendingShard > last) {
          break;
        }
        if (pendingShard >= first) {
          ShardEntries shard = entries.get(pendingShard);
          if (shard != null) {
            current = addPending(shard, current);
          }
        }
        pending = null;
      }
      for (PlannedShard shard : shards) {
        if (entries.get(shard.index()).finish().isEmpty()) {
          throw new IllegalStateException("Cannot create shard " + shard.url() + ": the partitions' ordered entries"
              + " hold none of its records (the scratch was changed; clean it and sort again)");
        }
      }
      return entries;
    } catch (IOException | RuntimeException e) {
      ShardEntries.closeAfter(entries.values(), e);
      throw e;
    }
  }

  /**
   * Adds the pending entry to {@code shard}, which it leaves no longer pending, and returns the shard; finishes
   * {@code previous} when the entries have moved on from it: they come shard by shard, so at most one shard's run is
   * open for writing.
   */
  private ShardEntries addPending(ShardEntries shard, ShardEntries previous) throws IOException {
    if (previous != null && previous != shard) {
      previous.finish();
    }
    shard.add(pending);
    pending = null;
    return shard;
  }

  /** Where the shards' entries gathered are kept. */
  ShardEntries.Spool spool() {
    return spool;
  }

  /** Reads the next entry into {@link #pending}, moving on to the next partition at the end of one; false at the end. */
  private boolean advance() throws IOException {
    while (true) {
      if (reader != null) {
        RecordEntry entry = reader.next();
        if (entry != null && packedEntries != null) {
          entry = packedEntries.located(entry, partition);
        }
        if (entry != null) {
          int template = plan.templates().size() == 1 ? 0 : ((Long) entry.contentKey()).intValue();
          if (template < 0 || template >= cuts.length || firstShard[template] < 0) {
            throw new IllegalStateException("Cannot create shards: partition " + partition + " holds an entry of"
                + " template " + template + ", which the plan has no shard of (the scratch was changed; clean it"
                + " and sort again)");
          }
          pendingShard = firstShard[template] + cuts[template].shardOf(records[template], starts[template]);
          records[template]++;
          starts[template] += ShardCuts.span(entry.size(), shardSize);
          pending = entry;
          return true;
        }
        checkAllRead();
      }
      if (partition + 1 >= plan.partitions().size() || ownPartitionOnly && reader != null) {
        return false;
      }
      open(partition + 1);
    }
  }

  private void open(int next) throws IOException {
    close();
    partition = next;
    pending = null;
    PlanSummary.PartitionStart start = plan.partitions().get(next);
    records = start.records().stream().mapToLong(Long::longValue).toArray();
    starts = start.starts().stream().mapToLong(Long::longValue).toArray();
    // The lists the plan counted: they point into the plan's packs, and no step writes them again.
    List<String> names = new ArrayList<>();
    if (plan.stepsByKeyHash()) {
      // One listing finds the steps' lists of the partition (only steps holding records of it wrote one); those of
      // the attempts the plan counted are read, any other attempt's are not.
      Set<String> counted = new HashSet<>();
      for (int step = 0; step < plan.partitions().size(); step++) {
        counted.add(scratch.partitionListOf(next, step, checkedOrdered(step)));
      }
      storage.list(scratch.partitionListsOf(next)).stream().filter(counted::contains).forEach(names::add);
    } else {
      names.add(checkedOrdered(next));
    }
    // More lists than a merge reads at once are merged in passes first, under names of this worker's own, where it
    // keeps the runs no other process reads.
    String passPrefix = scratch.partitionSortPrefix(next, UUID.randomUUID());
    AtomicInteger passRuns = new AtomicInteger();
    reader = RunMerger.open(storage, names, order, ownRuns,
        () -> String.format("%s%06d.run", passPrefix, passRuns.getAndIncrement()));
  }

  /** The ordered list the plan names for step {@code step}, refused unless it is one of that step's names. */
  private String checkedOrdered(int step) {
    String name = plan.partitions().get(step).ordered();
    if (!scratch.isPartitionOrdered(step, name)) {
      throw new IllegalStateException("Cannot create shards: the plan names an ordered list of partition " + step
          + " that is not one of its own (the scratch was changed; clean it and sort again)");
    }
    return name;
  }

  /**
   * At the end of a partition's ordered list: refuses it unless it held, template by template, the records the plan
   * counts between this partition's start and the next one's (a list cut short or changed would shift every shard).
   */
  private void checkAllRead() {
    for (int template = 0; template < records.length; template++) {
      long end = partition + 1 < plan.partitions().size()
          ? plan.partitions().get(partition + 1).records().get(template) : plan.templateRecords().get(template);
      long start = plan.partitions().get(partition).records().get(template);
      if (records[template] != end) {
        throw new IllegalStateException("Cannot create shards: partition " + partition + "'s ordered list holds "
            + (records[template] - start) + " records of template " + template + ", not the " + (end - start)
            + " the plan counts (the scratch was changed; clean it and sort again)");
      }
    }
  }

  @Override
  public void close() throws IOException {
    if (reader != null) {
      reader.close();
      reader = null;
    }
  }
}
