package dev.quarry.core.sort.plan;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
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
 * @param outputs for a content or none order whose records spread (this step dropped the copies of a range of key
 *     hashes, and wrote its kept records as one ordered list per partition it holds records of, {@code
 *     Scratch#partitionListOf}): the counts of each of those lists, in partition order, and of no other partition (so
 *     the marker grows with its lists, not with P); null otherwise
 */
public record PartitionResult(int index, int count, int extractCount, List<String> packs, String keymapSha256,
    String ordered,
    long recordsOrdered, long duplicatesDropped, long recordsDropped, List<TemplateCounts> templates,
    List<OutputCounts> outputs) {

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
   * give: a planted marker must not make the plan cut more shards than its records fill. Refuses too per-partition
   * counts that are not of rising partitions each with records, or do not add up to the kept records.
   */
  public void checkSpans(long shardSize) {
    boolean outputsFit = outputs == null || outputs.stream().allMatch(output ->
        output != null && output.records() > 0 && output.partition() < count && valid(output)
            && output.counts().fits(shardSize))
        && java.util.stream.IntStream.range(0, outputs.size()).allMatch(i ->
            outputs.get(i).partition() > (i == 0 ? -1 : outputs.get(i - 1).partition()))
        && outputs.stream().mapToLong(OutputCounts::records).sum()
            == templates.stream().mapToLong(TemplateCounts::records).sum();
    if (!outputsFit || !templates.stream().allMatch(counts -> counts.fits(shardSize))) {
      throw new IllegalStateException("Cannot plan: the counts of partition " + index + " do not fit its records"
          + " (the scratch was changed; clean it and sort again)");
    }
  }

  private static boolean valid(OutputCounts output) {
    try {
      return output.counts() != null;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * The kept records of one partition a content or none step wrote a list of (the last of them is in the step's
   * {@code Scratch#partitionLastOf}: the plan finds there the partition's last record, whose part of the span is the
   * partition's last span). Written as one array, {@code [partition, records, bytes, span, lastSpan]}: a marker holds
   * one per list its step wrote.
   *
   * @param partition the partition
   * @param records how many (at least one), then their bytes, span and last span as {@link TemplateCounts} has them
   */
  @JsonFormat(shape = JsonFormat.Shape.ARRAY)
  @JsonPropertyOrder({"partition", "records", "bytes", "span", "lastSpan"})
  public record OutputCounts(int partition, long records, long bytes, long span, long lastSpan) {
    public OutputCounts(int partition, TemplateCounts counts) {
      this(partition, counts.records(), counts.bytes(), counts.span(), counts.lastSpan());
    }

    /** Their counts; refused when no records can give them. */
    public TemplateCounts counts() {
      return new TemplateCounts(records, bytes, span, lastSpan);
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

    /** Whether records of at most {@code shardSize} counted bytes each (0: not by bytes) can give these counts. */
    boolean fits(long shardSize) {
      boolean fits = shardSize > 0
          ? lastSpan <= shardSize && span / shardSize <= records && span <= bytes
          : span == bytes;
      return fits && (records == 0) == (span == 0);
    }

    /** These counts and {@code other}'s, whose records come after these: its last span is the last. */
    public TemplateCounts and(TemplateCounts other) {
      return new TemplateCounts(Math.addExact(records, other.records), Math.addExact(bytes, other.bytes),
          Math.addExact(span, other.span), other.records > 0 ? other.lastSpan : lastSpan);
    }

    /** These counts with one more record of {@code size} bytes at the end, {@code shardSize} 0 if not by bytes. */
    public TemplateCounts plus(long size, long shardSize) {
      long spanned = shardSize > 0 ? Math.min(size, shardSize) : size;
      return new TemplateCounts(records + 1, bytes + size, span + spanned, spanned);
    }
  }
}
