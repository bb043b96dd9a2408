package dev.quarry.core.archive;

import java.util.List;

/**
 * A record read from a shard, with the raw ranges of its members in the uncompressed stream when the shard is a tar
 * (empty otherwise), in member order. Adjacent ranges are merged, so a record whose members were adjacent in the
 * input is one range.
 */
public record GroupedRecord(Record record, List<RawRange> rawRanges) {
  public GroupedRecord {
    rawRanges = List.copyOf(rawRanges);
  }

  public String key() {
    return record.key();
  }
}
