package dev.quarry.core.sort.create;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.sort.input.InputShard;
import dev.quarry.core.sort.extract.PackStore;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.RangedContent;
import dev.quarry.core.store.S3Settings;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OrderedRecordBytesTest {
  /**
   * A shard's records read from any offset, as an upload in parts reads them: records of several ranges, in two
   * shards' packs, give the bytes of their ranges in plan order from wherever a read begins and for as long as it
   * asks.
   */
  @Test
  void recordBytesReadFromAnyOffsetAreTheirRangesInPlanOrder() throws IOException {
    byte[][] packs = {"0123456789".getBytes(UTF_8), "abcdefghij".getBytes(UTF_8)};
    PackStore inMemory = new PackStore() {
      @Override
      public PackOutput create(int shard) {
        throw new UnsupportedOperationException("read only");
      }

      @Override
      public InputStream read(int shard, long offset, long length) {
        return new ByteArrayInputStream(packs[shard], (int) offset, (int) length);
      }
    };
    List<RecordEntry> entries = List.of(
        new RecordEntry("b", 1, 0, true, List.of(new RawRange(2, 3), new RawRange(8, 2)), 5, null),
        new RecordEntry("a", 0, 0, true, List.of(new RawRange(0, 4)), 4, null),
        new RecordEntry("c", 1, 1, true, List.of(new RawRange(0, 1)), 1, null));
    String whole = "cdeij" + "0123" + "a";
    try (RecordSource source = new RecordSource(List.of(), null, inMemory)) {
      RangedContent bytes = OrderedRecordBytes.of(source, HeldEntries.of(entries));
      assertThat(bytes.length()).isEqualTo(whole.length());
      for (int offset = 0; offset <= whole.length(); offset++) {
        for (int length = 0; offset + length <= whole.length(); length++) {
          try (InputStream in = bytes.open(offset, length)) {
            assertThat(new String(in.readAllBytes(), UTF_8)).as(offset + ", " + length)
                .isEqualTo(whole.substring(offset, offset + length));
          }
        }
      }
    }
  }

  /**
   * An input file cut short after its first record was read, so while it is kept open for the others: the read that
   * passes its new end fails, naming the input shard and saying what to do, as a range past its end at the first
   * record does. Kept open, its records after the first are no longer checked against its size when opened.
   */
  @Test
  void anInputCutShortAfterItsFirstRecordFailsTheReadPastItsEndSayingToRerun(@TempDir Path dir)
      throws IOException {
    Path file = dir.resolve("in-0.tar");
    Files.writeString(file, "first-record|second-record");
    List<RecordEntry> entries = List.of(
        new RecordEntry("a", 0, 0, false, List.of(new RawRange(0, 12)), 12, null),
        new RecordEntry("b", 0, 1, false, List.of(new RawRange(13, 13)), 13, null));
    try (ObjectStores stores = new ObjectStores(S3Settings.defaults());
        RecordSource source = new RecordSource(List.of(new InputShard(0, file.toString(), ShardFormat.TAR)), stores,
            null);
        InputStream in = OrderedRecordBytes.of(source, HeldEntries.of(entries)).open(0, 25)) {
      assertThat(new String(in.readNBytes(12), UTF_8)).isEqualTo("first-record");
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
        channel.truncate(16);
      }
      assertThatThrownBy(in::readAllBytes).isInstanceOf(IOException.class)
          .hasMessage("Cannot read record bytes of input shard 0: Cannot read " + stores.locate(file.toString())
              .store().url(stores.locate(file.toString()).key()) + ": the file ended at byte 16 instead of 26 (it"
              + " shrank while being read) (the input changed since extract; rerun the job)");
    }
  }
}
