package dev.quarry.core.sort.create;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.tar.TarWriter;
import dev.quarry.core.sort.records.RecordEntry;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ShardBuilderTest {
  @TempDir
  Path work;

  /** Records' raw tar bytes, one after the other, and their entries. */
  private record RawRecords(byte[] raw, List<RecordEntry> entries) {}

  /**
   * Records of members from empty to 6 MiB: text that deflates, random bytes that do not (a zip stores them after
   * deflating past their size), and names long enough for a PAX header.
   */
  private static RawRecords records() throws Exception {
    Random random = new Random(11);
    byte[] text = "the same line of a caption, again and again\n".repeat(150_000).getBytes(StandardCharsets.UTF_8);
    byte[] noise = new byte[3 << 20];
    random.nextBytes(noise);
    ByteArrayOutputStream raw = new ByteArrayOutputStream();
    List<RecordEntry> entries = new ArrayList<>();
    try (TarWriter tar = new TarWriter(raw)) {
      for (int record = 0; record < 5; record++) {
        long start = tar.bytesWritten();
        String key = "r" + record + (record == 3 ? "/" + "p".repeat(120) : "");
        tar.writeMember(key + ".cls", Integer.toString(record).getBytes(StandardCharsets.US_ASCII));
        tar.writeMember(key + ".txt", Arrays.copyOf(text, record * 1_500_000));
        tar.writeMember(key + ".bin", Arrays.copyOf(noise, record * 700_000));
        tar.writeMember(key + ".empty", new byte[0]);
        long size = tar.bytesWritten() - start;
        entries.add(new RecordEntry(key, 0, record, true, List.of(new RawRange(start, size)), size, null));
      }
    }
    return new RawRecords(Arrays.copyOf(raw.toByteArray(), (int) entries.getLast().ranges().getFirst().end()),
        entries);
  }

  private byte[] converted(ShardFormat format, RawRecords records, long recordBytesHeld) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ShardBuilder.convert(format, HeldEntries.of(records.entries()), new ByteArrayInputStream(records.raw()), out,
        work, recordBytesHeld);
    return out.toByteArray();
  }

  /**
   * A record past the bytes a conversion holds is written from a file in the work folder, in the same bytes as held
   * whole, in every format but tar (which is copied raw), and the file is gone afterwards.
   */
  @ParameterizedTest
  @EnumSource(value = ShardFormat.class, names = {"ZIP", "MSGPACK", "TAR_GZ", "TAR_LZ4"})
  void aRecordWrittenFromTheWorkFolderIsTheSameBytesAsOneHeld(ShardFormat format) throws Exception {
    RawRecords records = records();
    byte[] held = converted(format, records, Long.MAX_VALUE);
    assertThat(converted(format, records, 0)).as("every record from the work folder").isEqualTo(held);
    assertThat(converted(format, records, 4 << 20)).as("the larger records from the work folder").isEqualTo(held);
    try (Stream<Path> left = Files.list(work)) {
      assertThat(left.toList()).as("files left").isEmpty();
    }
  }

  /** A record whose raw bytes hold fewer whole members than its entry says is refused, not written shifted. */
  @Test
  void aRecordWhoseBytesEndEarlyIsRefused() throws Exception {
    RawRecords records = records();
    RecordEntry second = records.entries().get(1);
    List<RecordEntry> entries = new ArrayList<>(records.entries());
    // The entry says 1,024 bytes more than the record's members: the next record's first header and data.
    entries.set(1, new RecordEntry(second.key(), 0, 1, true, List.of(new RawRange(
        second.ranges().getFirst().offset(), second.size() + 1024)), second.size() + 1024, null));
    entries.subList(2, entries.size()).clear();
    assertThatThrownBy(() -> converted(ShardFormat.ZIP, new RawRecords(records.raw(), entries), 0))
        .hasMessageContaining("r2.cls");
  }
}
