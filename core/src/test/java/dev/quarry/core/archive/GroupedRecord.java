package dev.quarry.core.archive;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A record read whole from a shard, with the raw ranges of its members in the uncompressed stream when the shard is
 * a tar (empty otherwise), in member order; adjacent ranges merged, so a record whose members were adjacent is one
 * range. The tests' reference reading of raw ranges: extract itself groups as it streams (ShardExtractor).
 */
public record GroupedRecord(Record record, List<RawRange> rawRanges) {
  public GroupedRecord {
    rawRanges = List.copyOf(rawRanges);
  }

  public String key() {
    return record.key();
  }

  /** Every record of {@code reader}, data included, in the order their first member came; no name may repeat. */
  public static List<GroupedRecord> readAll(ShardReader reader) throws IOException {
    Map<String, List<Member>> members = new LinkedHashMap<>();
    Map<String, List<RawRange>> ranges = new LinkedHashMap<>();
    for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
      String key = RecordKeys.of(member.name());
      List<Member> record = members.computeIfAbsent(key, k -> new ArrayList<>());
      String name = member.name();
      if (record.stream().anyMatch(seen -> seen.name().equals(name))) {
        throw new IllegalArgumentException("member " + name + " appears twice");
      }
      record.add(new Member(member.name(), member.readData()));
      List<RawRange> recordRanges = ranges.computeIfAbsent(key, k -> new ArrayList<>());
      RawRange raw = member.raw();
      if (raw != null && !recordRanges.isEmpty() && recordRanges.getLast().end() == raw.offset()) {
        RawRange last = recordRanges.removeLast();
        recordRanges.add(new RawRange(last.offset(), last.length() + raw.length()));
      } else if (raw != null) {
        recordRanges.add(raw);
      }
    }
    List<GroupedRecord> records = new ArrayList<>(members.size());
    members.forEach((key, list) -> records.add(new GroupedRecord(new Record(key, list), ranges.get(key))));
    return records;
  }
}
