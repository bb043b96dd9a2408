package dev.quarry.core.sort.plan;

import java.util.List;

/**
 * What one partition step did, written as its done marker after its ordered list: the counts the plan turns into
 * every partition's global offsets, the only thing that crosses partitions.
 *
 * @param index the partition
 * @param count how many partitions the job has
 * @param extractCount how many extract workers wrote the runs it merged
 * @param packs the pack of each of those extract workers (null for one that wrote none): its ordered list points
 *     into these, so it is done only for the packs the extract done markers name now
 * @param keymapSha256 the {@code Keymap#sha256} of the key map it routed records by (null for an order of no key map):
 *     done only while the extract done markers name that key map too
 * @param ordered the name of its ordered list, one of this attempt's own ({@code Scratch#partitionOrdered})
 * @param recordsOrdered records this step ordered (those of its partition, duplicates included)
 * @param duplicatesDropped copies of a key dropped by the duplicates policy
 * @param recordsDropped records dropped for matching no key map line
 * @param templates the kept records' counts per output template, in template order
 */
public record PartitionResult(int index, int count, int extractCount, List<String> packs, String keymapSha256,
    String ordered,
    long recordsOrdered, long duplicatesDropped, long recordsDropped, List<TemplateCounts> templates) {

  public PartitionResult {
    boolean complete = templates != null && templates.stream().noneMatch(java.util.Objects::isNull);
    long kept = complete ? templates.stream().mapToLong(TemplateCounts::records).sum() : -1;
    if (kept < 0 || duplicatesDropped < 0 || recordsDropped < 0
        || kept + duplicatesDropped + recordsDropped != recordsOrdered) {
      throw new IllegalArgumentException("Invalid partition counts: " + recordsOrdered + " records ordered, not the "
          + kept + " kept and " + duplicatesDropped + " and " + recordsDropped + " dropped (must add up)");
    }
  }

  /**
   * Refuses counts that records of at most {@code shardSize} counted bytes each (0: shards not sized in bytes) cannot
   * give: a planted marker must not make the plan cut more shards than its records fill.
   */
  public void checkSpans(long shardSize) {
    for (TemplateCounts counts : templates) {
      boolean fits = shardSize > 0
          ? counts.lastSpan() <= shardSize && counts.span() / shardSize <= counts.records()
              && counts.span() <= counts.bytes()
          : counts.span() == counts.bytes();
      if (!fits || (counts.records() == 0) != (counts.span() == 0)) {
        throw new IllegalStateException("Cannot plan: the counts of partition " + index + " do not fit its records"
            + " (the scratch was changed; clean it and sort again)");
      }
    }
  }

  /**
   * The records of one template in a partition.
   *
   * @param records how many
   * @param bytes their raw tar bytes
   * @param span their bytes with each record counted at most the shard size (all of its bytes when shards are not
   *     sized in bytes): byte-sized shards are cut by this offset ({@link ShardCuts})
   * @param lastSpan the last record's part of the span
   */
  public record TemplateCounts(long records, long bytes, long span, long lastSpan) {
    public static final TemplateCounts NONE = new TemplateCounts(0, 0, 0, 0);

    public TemplateCounts {
      if (records < 0 || bytes < 0 || span < 0 || lastSpan < 0 || lastSpan > span) {
        throw new IllegalArgumentException("Invalid partition counts: " + records + " records, " + bytes
            + " bytes, span " + span + ", last " + lastSpan + " (must be positive, the last within the span)");
      }
    }

    /** These counts with one more record of {@code size} bytes at the end, {@code shardSize} 0 if not by bytes. */
    public TemplateCounts plus(long size, long shardSize) {
      long spanned = shardSize > 0 ? Math.min(size, shardSize) : size;
      return new TemplateCounts(records + 1, bytes + size, span + spanned, spanned);
    }
  }
}
