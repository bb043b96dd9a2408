package dev.quarry.core.sort.plan;

import java.util.List;

/**
 * The plan, written last by the plan phase: the output format, the output templates (one unless the order is a key
 * map), each template's record count, where each partition starts in each template's order, and how many output
 * shards there are and which partition owns each run of them. The shards themselves are in pages beside it
 * ({@link PlanShards}), and the input shards in the scratch's input list: this stays small whatever the numbers of
 * shards, since every create worker reads it.
 *
 * @param partitioned whether records were spread over the partitions by their order (else all are in partition 0)
 * @param stepsByKeyHash whether the partition steps were of key-hash ranges (content and none orders whose records
 *     spread): then partition p's records are the lists of p of the steps holding records of it
 *     ({@code Scratch#partitionListOf}), merged in the job's order, and each {@link PartitionStart#ordered} is its
 *     step's, which those are named after
 * @param shardRanges the output shards [0, shardCount) in order, as runs of one template and one owning partition
 */
public record PlanSummary(String outputFormat, List<String> templates, long records, long bytes,
    long duplicatesDropped, long recordsDropped, boolean partitioned, List<Long> templateRecords,
    List<PartitionStart> partitions, List<ExtractPack> packs, boolean stepsByKeyHash, long shardCount,
    List<ShardRange> shardRanges) {

  /** Output shards [from, to) of the plan: of template {@code template}, their first records in {@code partition}. */
  public record ShardRange(int template, int partition, long from, long to) {}

  /** The index of the first shard of each template, -1 for a template of no shard. */
  public long[] firstShards() {
    long[] first = new long[templates.size()];
    java.util.Arrays.fill(first, -1);
    for (ShardRange range : shardRanges) {
      if (range.template() >= 0 && range.template() < first.length && first[range.template()] < 0) {
        first[range.template()] = range.from();
      }
    }
    return first;
  }

  /**
   * The pack extract worker of input shards [from, to) wrote, and its bytes of records, where its segment table
   * starts ({@code SegmentTable}); pack null when it wrote none.
   */
  public record ExtractPack(int from, int to, String pack, long recordBytes) {
    /** The extract worker that read input shard {@code shard}. */
    public static int indexOf(List<ExtractPack> packs, int shard) {
      int low = 0;
      int high = packs.size() - 1;
      while (low <= high) {
        int middle = (low + high) >>> 1;
        ExtractPack pack = packs.get(middle);
        if (shard < pack.from()) {
          high = middle - 1;
        } else if (shard >= pack.to()) {
          low = middle + 1;
        } else {
          return middle;
        }
      }
      throw new IllegalStateException("Cannot find the extract worker of input shard " + shard + " (the scratch was"
          + " changed; clean it and sort again)");
    }
  }

  /**
   * The place of a partition's first record of each template in that template's order: records before it, and the
   * start offset of {@link ShardCuts} (the prefix sums of the partitions' counts); and the ordered list the plan
   * counted, which create reads (a step of the partition that runs again writes another).
   */
  public record PartitionStart(List<Long> records, List<Long> starts, String ordered) {}
}
