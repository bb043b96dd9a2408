package dev.quarry.core.archive.tar;

import static dev.quarry.core.archive.Shards.fingerprints;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.GroupedRecord;
import dev.quarry.core.archive.RawRange;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.ShardReaders;
import dev.quarry.core.archive.Shards;
import dev.quarry.testkit.CommandResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tar assembled by copying raw member ranges equals one written member by member. */
class RawRangeTest {
  @TempDir Path temp;

  @Test
  void rawRangesOfOurTarReassembleItByteForByteLongAndUnicodeNamesIncluded() throws Exception {
    List<Record> records = new ArrayList<>(TarCompatibilityTest.recordsWithHardNames());
    byte[] written = Shards.write(ShardFormat.TAR, records);

    List<GroupedRecord> grouped = group(ShardFormat.TAR, written);
    assertThat(grouped).extracting(GroupedRecord::key).containsExactlyElementsOf(
        records.stream().map(Record::key).toList());
    assertThat(grouped).allSatisfy(record -> assertThat(record.rawRanges()).as("adjacent members merge").hasSize(1));
    assertThat(assemble(written, grouped)).isEqualTo(written);
  }

  @Test
  void reorderedRawRangesEqualWritingTheRecordsInThatOrder() throws Exception {
    List<Record> records = new ArrayList<>(TarCompatibilityTest.recordsWithHardNames());
    records.addAll(Shards.records(List.of("r-3", "r-1", "r-2"), 700));
    byte[] written = Shards.write(ShardFormat.TAR, records);
    List<GroupedRecord> grouped = new ArrayList<>(group(ShardFormat.TAR, written));
    Collections.shuffle(grouped, new Random(5));

    byte[] fromRanges = assemble(written, grouped);
    byte[] memberByMember = Shards.write(ShardFormat.TAR, grouped.stream().map(GroupedRecord::record).toList());
    assertThat(fromRanges).isEqualTo(memberByMember);
  }

  @Test
  void rangesInsideCompressedTarsPointIntoTheUncompressedStream() throws Exception {
    List<Record> records = TarCompatibilityTest.recordsWithHardNames();
    byte[] plain = Shards.write(ShardFormat.TAR, records);
    for (ShardFormat format : List.of(ShardFormat.TAR_GZ, ShardFormat.TAR_LZ4)) {
      List<GroupedRecord> grouped = group(format, Shards.write(format, records));
      assertThat(assemble(plain, grouped)).as(format.extension()).isEqualTo(plain);
    }
  }

  @Test
  void rawRangesOfGnuTarLongNamesCopyIntoAnArchiveGnuTarAndTarfileRead() throws Exception {
    Path source = Files.createDirectories(temp.resolve("src"));
    String longKey = "l".repeat(150) + "/" + "k".repeat(120);
    Files.createDirectories(source.resolve(longKey).getParent());
    Files.writeString(source.resolve(longKey + ".txt"), "long");
    Files.writeString(source.resolve(longKey + ".cls"), "9");
    Files.writeString(source.resolve("b.txt"), "bee");
    for (String format : List.of("gnu", "pax")) {
      Path input = temp.resolve(format + ".tar");
      CommandResult.check(source, "tar", "--format=" + format, "--sort=name", "-cf", input.toString(), ".");
      byte[] bytes = Files.readAllBytes(input);
      List<GroupedRecord> grouped = new ArrayList<>(group(ShardFormat.TAR, bytes));
      Collections.reverse(grouped);
      Path output = temp.resolve(format + "-reassembled.tar");
      Files.write(output, assemble(bytes, grouped));

      assertThat(CommandResult.check(temp, "tar", "-tf", output.toString()).lines().toList())
          .containsExactly("./" + longKey + ".cls", "./" + longKey + ".txt", "./b.txt");
      assertThat(fingerprints(Shards.read(ShardFormat.TAR, output)))
          .isEqualTo(fingerprints(Shards.read(ShardFormat.TAR, Files.readAllBytes(input))));
    }
  }

  private static List<GroupedRecord> group(ShardFormat format, byte[] shard) throws Exception {
    try (InputStream in = new ByteArrayInputStream(shard);
        var reader = ShardReaders.open(format, in, "raw." + format.extension(), ArchiveLimits.DEFAULT)) {
      return GroupedRecord.readAll(reader);
    }
  }

  /** What the create phase does: copy each record's raw ranges, then end the archive. */
  private static byte[] assemble(byte[] source, List<GroupedRecord> records) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (TarWriter writer = new TarWriter(out)) {
      for (GroupedRecord record : records) {
        for (RawRange range : record.rawRanges()) {
          writer.writeRaw(source, (int) range.offset(), (int) range.length());
        }
        writer.countRecord();
      }
    }
    return out.toByteArray();
  }
}
