package dev.quarry.core.archive;

import dev.quarry.core.policy.Policy;
import dev.quarry.core.policy.Problems;
import dev.quarry.core.text.Printable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Groups the members of one shard into records by WebDataset's rule. Grouping is by lookup, so members of a record
 * need not be adjacent in the input; records come out in the order their first member appears, and a record's
 * members in stream order. A member name that appears twice in the shard is a duplicate: under ignore or warn the
 * first occurrence is kept, under abort the shard fails.
 */
public final class RecordGrouper {
  /** The problem kind counted for a member name repeated inside one shard. */
  public static final String DUPLICATE_MEMBER = "duplicateMember";

  private RecordGrouper() {}

  /** Reads every member of {@code reader} (data included) and groups them. */
  public static List<GroupedRecord> group(ShardReader reader, String shard, Policy duplicates, Problems problems)
      throws IOException {
    Map<String, List<Member>> members = new LinkedHashMap<>();
    Map<String, List<RawRange>> ranges = new LinkedHashMap<>();
    Set<String> names = new HashSet<>();
    for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
      String name = member.name();
      if (!names.add(name)) {
        String message = "member " + Printable.of(name) + " appears more than once in shard "
            + Printable.of(shard);
        problems.report(duplicates, DUPLICATE_MEMBER, message + "; kept the first",
            () -> ArchiveException.ofMember(shard, name, "it appears more than once in the shard (policy"
                + " duplicatedRecords is abort; set it to warn or ignore to keep the first occurrence)"));
        continue;
      }
      String key = RecordKeys.of(name);
      members.computeIfAbsent(key, k -> new ArrayList<>()).add(new Member(name, member.readData()));
      if (member.raw() != null) {
        addMerging(ranges.computeIfAbsent(key, k -> new ArrayList<>()), member.raw());
      }
    }
    List<GroupedRecord> records = new ArrayList<>(members.size());
    members.forEach((key, list) ->
        records.add(new GroupedRecord(new Record(key, list), ranges.getOrDefault(key, List.of()))));
    return records;
  }

  private static void addMerging(List<RawRange> ranges, RawRange next) {
    if (!ranges.isEmpty() && ranges.get(ranges.size() - 1).end() == next.offset()) {
      RawRange last = ranges.remove(ranges.size() - 1);
      ranges.add(new RawRange(last.offset(), last.length() + next.length()));
    } else {
      ranges.add(next);
    }
  }
}
