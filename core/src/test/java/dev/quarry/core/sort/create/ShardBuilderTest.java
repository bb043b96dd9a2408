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
        .hasMessageContaining("record r1 of input shard 0: its raw bytes hold member r2.cls, of another record")
        .hasMessageContaining("(the input changed since extract; rerun the job)");
  }
  /**
   * A tar shard is its records' raw bytes checked as they are copied: as they are, they give the bytes and the
   * end-of-archive blocks; read where other members lie than the entries say (another record's members at a record's
   * place, a range that starts inside a member's data, bytes that end inside a record), the copy fails before the
   * end-of-archive blocks, naming the record. Before, every case but the last was copied as it was, with no error.
   */
  @Test
  void aTarShardIsItsRecordsBytesWhereTheyAreTheRecordsTheEntriesSay() throws Exception {
    RawRecords records = records();
    ByteArrayOutputStream whole = new ByteArrayOutputStream();
    ShardBuilder.copyTar(new ByteArrayInputStream(records.raw()), HeldEntries.of(records.entries()), whole);
    byte[] expected = Arrays.copyOf(records.raw(), records.raw().length + 1024);
    assertThat(whole.toByteArray()).isEqualTo(expected);

    List<RecordEntry> swapped = new ArrayList<>(records.entries());
    RecordEntry first = swapped.get(0);
    RecordEntry second = swapped.get(1);
    swapped.set(0, new RecordEntry(second.key(), 0, 0, true, first.ranges(), first.size(), null));
    assertCopyRefused(records.raw(), swapped, "Cannot write record r1 of input shard 0: its raw bytes hold member"
        + " r0.cls, of another record");

    byte[] shifted = Arrays.copyOf(records.raw(), records.raw().length);
    System.arraycopy(records.raw(), 512, shifted, 0, records.raw().length - 512); // the first header gone
    assertCopyRefused(shifted, records.entries(), "Cannot read record r0 of input shard 0");

    // Bytes past the last record: a zero block, which a reader takes for the end of an archive.
    byte[] longer = Arrays.copyOf(records.raw(), records.raw().length + 512);
    assertCopyRefused(longer, records.entries(), "Cannot write record r4 of input shard 0");

    byte[] cut = Arrays.copyOf(records.raw(), (int) records.entries().get(2).ranges().getFirst().offset() + 700);
    List<RecordEntry> upToTheCut = records.entries().subList(0, 3);
    assertThatThrownBy(() -> ShardBuilder.copyTar(new ByteArrayInputStream(cut), HeldEntries.of(upToTheCut),
        new ByteArrayOutputStream())).hasMessageContaining("record r2 of input shard 0")
        .hasMessageContaining("(the input changed since extract; rerun the job)");
  }

  /**
   * A conversion holds a record's raw bytes to its entry too. Bytes rewritten since extract so that the record's range
   * lies in zeros (an input cut and padded again) gave a record of no member, and a last member that grew past the
   * range read its data on into the end-of-archive blocks; both were converted with no error, held or spooled.
   */
  @ParameterizedTest
  @EnumSource(value = ShardFormat.class, names = {"ZIP", "MSGPACK"})
  void aConversionRefusesARecordWhoseBytesAreNotItsEntrysWholeMembers(ShardFormat format) throws Exception {
    RawRecords records = records();
    RecordEntry last = records.entries().getLast();
    byte[] zeroed = records.raw().clone();
    Arrays.fill(zeroed, (int) last.ranges().getFirst().offset(), zeroed.length, (byte) 0);
    for (long held : List.of(Long.MAX_VALUE, 0L)) {
      assertThatThrownBy(() -> converted(format, new RawRecords(zeroed, records.entries()), held))
          .hasMessageContaining("Cannot convert record r4 of input shard 0: its raw bytes are not the " + last.size()
              + " of whole tar members its entry says (the input changed since extract; rerun the job)");
    }

    // The last record's last member, empty, rewritten in the same place with 600 bytes: its data runs past the record.
    ByteArrayOutputStream grown = new ByteArrayOutputStream();
    try (TarWriter tar = new TarWriter(grown)) {
      tar.writeMember("r4.empty", new byte[600]);
    }
    byte[] rewritten = records.raw().clone();
    System.arraycopy(grown.toByteArray(), 0, rewritten, rewritten.length - 512, 512); // its header alone
    for (long held : List.of(Long.MAX_VALUE, 0L)) {
      assertThatThrownBy(() -> converted(format, new RawRecords(rewritten, records.entries()), held))
          .as("held " + held)
          .hasMessageContaining("Cannot convert record r4 of input shard 0: its raw bytes are not the " + last.size()
              + " of whole tar members its entry says (the input changed since extract; rerun the job)");
    }
  }

  /**
   * A member whose name is a key and a suffix of up to a megabyte each, as a msgpack shard may give (extract writes it
   * into its pack with a PAX header of both), is copied and converted: the reader's header limit was the one of
   * input shards, a megabyte, and refused it as a changed input.
   */
  @Test
  void aNameOfTwoMegabytesReadBackFromAPackIsCopied() throws Exception {
    String key = "k".repeat((1 << 20) - 8);
    ByteArrayOutputStream raw = new ByteArrayOutputStream();
    try (TarWriter tar = new TarWriter(raw)) {
      tar.writeMember(key + "." + "s".repeat((1 << 20) - 8), "data".getBytes(StandardCharsets.US_ASCII));
    }
    int size = raw.size() - 1024;
    List<RecordEntry> entries = List.of(new RecordEntry(key, 0, 0, true, List.of(new RawRange(0, size)), size, null));
    byte[] bytes = Arrays.copyOf(raw.toByteArray(), size);
    ByteArrayOutputStream copied = new ByteArrayOutputStream();
    ShardBuilder.copyTar(new ByteArrayInputStream(bytes), HeldEntries.of(entries), copied);
    assertThat(copied.toByteArray()).isEqualTo(raw.toByteArray());
    assertThat(converted(ShardFormat.MSGPACK, new RawRecords(bytes, entries), Long.MAX_VALUE)).isNotEmpty();
  }

  private static void assertCopyRefused(byte[] raw, List<RecordEntry> entries, String message) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThatThrownBy(() -> ShardBuilder.copyTar(new ByteArrayInputStream(raw), HeldEntries.of(entries), out))
        .hasMessageContaining(message).hasMessageContaining("(the input changed since extract; rerun the job)");
    assertThat(out.size()).as("bytes passed before the refusal").isLessThan(raw.length + 1024);
  }
}
