package dev.quarry.core.sort.create;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.sort.extract.PackStore;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.store.RangedContent;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

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
}
