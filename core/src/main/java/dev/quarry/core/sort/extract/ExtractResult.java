package dev.quarry.core.sort.extract;

import dev.quarry.core.json.Json;
import dev.quarry.core.sort.plan.Partitioner;
import dev.quarry.core.sync.cas.Digest;
import java.util.HexFormat;
import java.util.List;

/**
 * What one extract worker did, written as its done marker.
 *
 * @param index the worker's index
 * @param count how many extract workers share the inputs; a marker of another count is another split, so stale
 * @param partitions how many partitions its runs are split into, from 1 to {@link Partitioner#MAX_PARTITIONS}; a
 *     marker of another number is stale too
 * @param from the first input shard (index in the input list) this worker read
 * @param to one past the last input shard it read
 * @param shards input shards read
 * @param missingShards input shards that did not exist (under an ignore or warn policy)
 * @param records records found
 * @param bytes raw tar bytes of those records
 * @param inputBytes bytes read from the input objects
 * @param attempt the attempt that wrote its runs and pack: its runs of partition p are those whose names start
 *     with {@code Scratch#extractRunsOf} (a listing finds them, so the marker does not grow with the partitions)
 * @param runs how many sorted runs it wrote, all partitions together
 * @param peakMetadataBytes the most record metadata held in memory at once (estimated)
 * @param metadataBytesPerRecord heap bytes of one record's metadata (estimated, on average)
 * @param pack the object holding its records' bytes partition by partition, then their {@link SegmentTable}, or
 *     null when records stay where they are (one partition, or an order that does not spread records over
 *     partitions)
 * @param packRecordBytes the bytes of records in the pack, where its segment table starts; 0 without a pack
 * @param splittersSha256 the SHA-256 (hex) of the JSON of the keys that start partitions 1, 2, ... of an
 *     alphanumeric or key map order, from the input sample: workers that split differently are refused without every marker
 *     carrying every key; null without splitters
 * @param keymapSha256 the {@code Keymap#sha256} of the key map it routed records by, null for an order of no key map:
 *     the partition steps and the plan read the key map object again, and refuse one edited meanwhile
 */
public record ExtractResult(int index, int count, int partitions, int from, int to, int shards, int missingShards,
    long records, long bytes, long inputBytes, String attempt, int runs, long peakMetadataBytes,
    long metadataBytesPerRecord, String pack, long packRecordBytes, String splittersSha256, String keymapSha256) {

  public ExtractResult {
    Partitioner.checkCount(partitions); // a marker read back decides how many partition steps the plan runs
  }

  /** The {@code splittersSha256} of {@code splitters}. */
  public static String splittersSha256(List<String> splitters) {
    return splitters.isEmpty() ? null : HexFormat.of().formatHex(Digest.sha256().digest(Json.bytes(splitters)));
  }
}
