package dev.quarry.core.sort.extract;

import java.util.List;

/**
 * What one extract worker did, written as its done marker.
 *
 * @param index the worker's index
 * @param count how many extract workers share the inputs; a marker of another count is another split, so stale
 * @param partitions how many partitions its runs are split into; a marker of another number is stale too
 * @param from the first input shard (index in the input list) this worker read
 * @param to one past the last input shard it read
 * @param shards input shards read
 * @param missingShards input shards that did not exist (under an ignore or warn policy)
 * @param records records found
 * @param bytes raw tar bytes of those records
 * @param inputBytes bytes read from the input objects
 * @param runs names of the sorted runs written, partition by partition
 * @param peakMetadataBytes the most record metadata held in memory at once (estimated)
 * @param metadataBytesPerRecord heap bytes of one record's metadata (estimated, on average)
 * @param pack the object holding its records' bytes partition by partition, or null when records stay where they
 *     are (one partition, or an order that does not spread records over partitions)
 * @param packSegments where each partition's segment starts in the pack, and the pack's size last; empty without
 * @param splitters the range keys that start partitions 1, 2, ... of an alphanumeric or key map order, from the
 *     input sample (see Partitioner)
 */
public record ExtractResult(int index, int count, int partitions, int from, int to, int shards, int missingShards,
    long records, long bytes, long inputBytes, List<List<String>> runs, long peakMetadataBytes, long metadataBytesPerRecord, String pack, List<Long> packSegments,
    List<String> splitters) {}
