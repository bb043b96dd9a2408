package dev.quarry.core.sort.plan;

import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.StoredJson;
import dev.quarry.core.sort.spec.BraceTemplate;
import dev.quarry.core.store.ObjectStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The plan's output shards, kept beside {@code plan.json} in pages of each partition's own shards, so that a create
 * worker reads the shards it builds and not every shard of the job (at 100 TiB, 409,600 of them: 40 MB of JSON read
 * and held by each of W workers), and the plan's summary stays small whatever the number of shards. Partition p's
 * shards are those of its {@link PlanSummary.ShardRange}s, in plan order; page k of them holds its shards
 * [k * page size, (k + 1) * page size). Pages are written before {@code plan.json}, the plan's commit point.
 */
public final class PlanShards {
  /** Shards a page holds: about 400 KiB of JSON. */
  static final int PAGE_SIZE = 4096;

  private final ObjectStore store;
  private final Scratch scratch;
  private final PlanSummary plan;
  private final int pageSize;
  private final Map<Long, List<PlannedShard>> pages = new HashMap<>();
  private final long[] firstShards;
  private final BraceTemplate[] templates;

  public PlanShards(ObjectStore store, Scratch scratch, PlanSummary plan) {
    this(store, scratch, plan, PAGE_SIZE);
  }

  PlanShards(ObjectStore store, Scratch scratch, PlanSummary plan, int pageSize) {
    this.store = store;
    this.scratch = scratch;
    this.plan = plan;
    this.pageSize = pageSize;
    this.firstShards = plan.firstShards();
    this.templates = new BraceTemplate[plan.templates().size()];
  }

  /** Writes the pages of {@code shards}, the plan's shards in order, grouped as {@code ranges} says. */
  static void write(ObjectStore store, Scratch scratch, List<PlannedShard> shards,
      List<PlanSummary.ShardRange> ranges, int pageSize) throws IOException {
    Map<Integer, List<PlannedShard>> byPartition = new HashMap<>();
    for (PlanSummary.ShardRange range : ranges) {
      byPartition.computeIfAbsent(range.partition(), p -> new ArrayList<>())
          .addAll(shards.subList((int) range.from(), (int) range.to()));
    }
    for (Map.Entry<Integer, List<PlannedShard>> partition : byPartition.entrySet()) {
      List<PlannedShard> own = partition.getValue();
      for (int page = 0; page * (long) pageSize < own.size(); page++) {
        StoredJson.write(store, scratch.planShards(partition.getKey(), page), own.subList(page * pageSize,
            (int) Math.min(own.size(), (page + 1L) * pageSize)).toArray(PlannedShard[]::new));
      }
    }
  }

  /**
   * Groups the plan's shards, in order, into runs of one template and one partition (a partition's shards of a
   * template are consecutive): at most one per partition and template, and never more than the shards.
   */
  static List<PlanSummary.ShardRange> ranges(List<PlannedShard> shards) {
    List<PlanSummary.ShardRange> ranges = new ArrayList<>();
    int start = 0;
    for (int i = 1; i <= shards.size(); i++) {
      if (i == shards.size() || shards.get(i).template() != shards.get(start).template()
          || shards.get(i).partition() != shards.get(start).partition()) {
        ranges.add(new PlanSummary.ShardRange(shards.get(start).template(), shards.get(start).partition(), start, i));
        start = i;
      }
    }
    return ranges;
  }

  /** The shards whose first record is in partition {@code partition}, in plan order. */
  public List<PlannedShard> ofPartition(int partition) throws IOException {
    List<PlannedShard> shards = new ArrayList<>();
    for (PlanSummary.ShardRange range : plan.shardRanges()) {
      if (range.partition() == partition) {
        shards.addAll(between(range.from(), range.to()));
      }
    }
    return shards;
  }

  /** Every shard of the plan, in order. */
  public List<PlannedShard> all() throws IOException {
    return between(0, plan.shardCount());
  }

  /** The shards of indexes [from, to), in order: only the pages that hold them are read. */
  public List<PlannedShard> between(long from, long to) throws IOException {
    List<PlannedShard> shards = new ArrayList<>();
    long before = 0; // shards of each partition in the ranges before this one
    Map<Integer, Long> partitionOffset = new HashMap<>();
    for (PlanSummary.ShardRange range : plan.shardRanges()) {
      long offset = partitionOffset.getOrDefault(range.partition(), 0L);
      partitionOffset.put(range.partition(), offset + range.to() - range.from());
      if (range.from() != before) {
        throw changed("its shard ranges do not follow one another");
      }
      before = range.to();
      for (long index = Math.max(from, range.from()); index < Math.min(to, range.to()); index++) {
        long own = offset + index - range.from();
        PlannedShard shard = page(range.partition(), own / pageSize).get((int) (own % pageSize));
        if (shard.index() != index || shard.partition() != range.partition() || shard.template() != range.template()) {
          throw changed("shard " + index + " is not where its page of partition " + range.partition() + " has it");
        }
        // Its name is its template's for its place: a page naming another object (or two shards one) is refused.
        if (!shard.url().equals(template(range.template()).name(index - firstShards[range.template()]))) {
          throw changed("shard " + index + " does not have the name its template gives it");
        }
        shards.add(shard);
      }
    }
    if (before != plan.shardCount()) {
      throw changed("its shard ranges hold " + before + " shards, not " + plan.shardCount());
    }
    return shards;
  }

  private BraceTemplate template(int template) {
    if (templates[template] == null) {
      templates[template] = BraceTemplate.parse(plan.templates().get(template), true);
    }
    return templates[template];
  }

  private List<PlannedShard> page(int partition, long page) throws IOException {
    long key = ((long) partition << 32) | page;
    List<PlannedShard> shards = pages.get(key);
    if (shards == null) {
      shards = Arrays.asList(StoredJson.read(store, scratch.planShards(partition, (int) page),
          PlannedShard[].class));
      pages.put(key, shards);
    }
    return shards;
  }

  private static IllegalStateException changed(String what) {
    return new IllegalStateException("Cannot read the plan's output shards: " + what + " (the scratch was changed;"
        + " clean it and sort again)");
  }
}
