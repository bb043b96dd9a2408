package dev.quarry.core.archive;

import java.util.List;
import java.util.Objects;

/**
 * A sample: every member of one shard whose name has the same {@linkplain RecordKeys key}. Writers put a record's
 * members next to each other, in the order given here.
 */
public record Record(String key, List<Member> members) {
  public Record {
    Objects.requireNonNull(key, "key");
    members = List.copyOf(members);
    for (Member member : members) {
      if (!RecordKeys.of(member.name()).equals(key)) {
        throw new IllegalArgumentException(
            "Invalid member name: " + member.name() + " (must belong to record " + key + ")");
      }
    }
  }

  /** Total size of the members' data in bytes. */
  public long size() {
    long size = 0;
    for (Member member : members) {
      size += member.data().length;
    }
    return size;
  }
}
