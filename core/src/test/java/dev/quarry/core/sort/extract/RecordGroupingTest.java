package dev.quarry.core.sort.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.RawRange;
import dev.quarry.testkit.SmallDisk;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The grouping's spills and merge passes, member by member: whatever it spilled, and however many spills it merged
 * before the end, it gives the records it would have held whole. The formats and real archives: ShardExtractorTest
 * and SortContract.
 */
class RecordGroupingTest {
  private static final int RECORDS = 100;

  @TempDir
  Path temp;

  /** Each record's three members far apart (every .a, then every .b, then every .c), and r007.b again at the end. */
  private static List<String> members() {
    List<String> names = new ArrayList<>();
    for (String suffix : List.of(".a", ".b", ".c")) {
      for (int record = 0; record < RECORDS; record++) {
        names.add(String.format("r%03d", (record * 37) % RECORDS) + suffix);
      }
    }
    names.add("r007.b");
    return names;
  }

  @Test
  void spillingAtEveryMemberPastTheFanInGivesTheRecordsHeldWhole() throws IOException {
    Grouped whole = group(1L << 30);
    Grouped spilled = group(1);

    assertThat(whole.spills).isZero();
    assertThat(spilled.spills).as("merge passes too").isGreaterThan(RecordGrouping.FAN_IN * 2);
    assertThat(spilled.records).isEqualTo(whole.records).hasSize(RECORDS);
    assertThat(spilled.duplicates).isEqualTo(whole.duplicates).containsExactly("r007.b");
    assertThat(whole.records.getFirst()).isEqualTo("r000@0 .a=0 .b=100 .c=200");
    assertThat(whole.records.get(7)).isEqualTo("r007@11 .a=11 .b=111 .c=211");
    try (Stream<Path> left = Files.list(temp)) {
      assertThat(left).as("spills deleted at close").isEmpty();
    }
  }

  /**
   * A duplicate under the abort policy, found as a merge pass joins its record's parts, fails with the policy's own
   * error, not as a failure of the disk (as it was before this was tested).
   */
  @Test
  void aDuplicateFoundInAMergePassFailsAsItselfNotAsTheDisk() {
    List<String> names = new ArrayList<>(List.of("a.txt"));
    for (int record = 0; record < RecordGrouping.FAN_IN - 2; record++) {
      names.add(String.format("r%03d.txt", record));
    }
    names.add("a.txt"); // the FAN_IN-th spill: a pass merges it with the first, which holds the first copy
    ArchiveException abort = new ArchiveException("shard", "Cannot read member a.txt of shard shard: it appears"
        + " more than once in the shard");
    assertThatThrownBy(() -> group(names, 1, name -> {
      throw abort;
    })).isSameAs(abort);
  }

  /**
   * One key of many members, spilled as parts of a few members each, is refused past a record's most members as the
   * parts are joined, in one line naming the member, not run out of memory.
   */
  @Test
  void aRecordOfTooManyMembersIsRefusedWhenItsPartsAreJoined() {
    List<String> names = new ArrayList<>();
    for (int member = 0; member <= RecordGrouping.MAX_RECORD_MEMBERS; member++) {
      names.add(String.format("one.%06d.txt", member));
    }
    assertThatThrownBy(() -> group(names, 64 << 10, name -> { }))
        .isInstanceOf(ArchiveException.class)
        .hasMessage("Cannot read member one." + RecordGrouping.MAX_RECORD_MEMBERS + ".txt of shard shard: its record"
            + " one would have more than " + RecordGrouping.MAX_RECORD_MEMBERS + " members, more than a record may"
            + " have (a record's members are grouped in memory; split the record into records of their own keys)");
  }

  @Test
  void aFullDiskSaysWhatToDo() throws Exception {
    try (SmallDisk disk = SmallDisk.mount(temp.resolve("small"), "64k");
        RecordGrouping grouping = new RecordGrouping("shard", disk.folder(), 1 << 10, name -> { })) {
      assertThatThrownBy(() -> {
        for (int member = 0; member < 100_000; member++) {
          grouping.add(grouping.joining(String.format("r%07d.txt", member)), new RawRange(member, 1), null);
        }
      }).hasMessageStartingWith("Cannot keep a shard's record members on this worker's disk (")
          .hasMessageContaining("No space left on device")
          .hasMessageEndingWith("): give its temporary folder more room");
    }
  }

  private record Grouped(List<String> records, List<String> duplicates, int spills) {}

  /** Groups {@link #members()}, each member's range its ordinal, and describes each record given. */
  private Grouped group(long budgetBytes) throws IOException {
    return group(members(), budgetBytes, new ArrayList<>()::add);
  }

  private Grouped group(List<String> names, long budgetBytes, RecordGrouping.Duplicates told) throws IOException {
    List<String> duplicates = new ArrayList<>();
    List<String> records = new ArrayList<>();
    int spills;
    try (RecordGrouping grouping = new RecordGrouping("shard", temp, budgetBytes, name -> {
      duplicates.add(name);
      told.duplicate(name);
    })) {
      int ordinal = 0;
      for (String name : names) {
        RecordGrouping.Joining joining = grouping.joining(name);
        if (joining != null) {
          grouping.add(joining, new RawRange(ordinal, 1), null);
        }
        ordinal++;
      }
      grouping.finish(record -> {
        StringBuilder text = new StringBuilder(record.key + "@" + record.position);
        for (RecordGrouping.Member member : record.members) {
          text.append(' ').append(member.suffix()).append('=').append(member.range().offset());
        }
        records.add(text.toString());
      });
      spills = grouping.spills();
    }
    return new Grouped(records, duplicates, spills);
  }
}
