package dev.quarry.core.sort.create;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.sort.extract.SegmentTable;
import dev.quarry.core.sort.plan.PlanSummary;
import dev.quarry.core.sort.plan.PlannedShard;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.FileStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardAssemblyTest {
  @TempDir
  Path folder;

  /**
   * A shard whose records are the last of a create worker's fetched segment and the first of the next segment reads
   * the first from the local copy and only the second from the pack: the piece starting exactly at the segment's
   * end is not taken for a local one, which would make one read of both from the store.
   */
  @Test
  void aContinuationStartingAtTheFetchedSegmentsEndIsReadFromThePackAlone() throws IOException,
      InterruptedException {
    try (FileStore files = new FileStore(folder.resolve("store"))) {
      byte[] records = "aaaabbbb".getBytes(StandardCharsets.UTF_8); // segment 0 is [0, 4), segment 1 [4, 8)
      ByteBuffer pack = ByteBuffer.allocate(records.length + 3 * Long.BYTES).put(records);
      pack.putLong(0).putLong(4).putLong(8);
      files.put("pack", pack.array());
      AtomicLong packBytesRead = new AtomicLong();
      var counted = new DelegatingStore(files) {
        @Override
        public InputStream getRange(String key, long offset, long length) throws IOException {
          if (offset < records.length) {
            packBytesRead.addAndGet(length);
          }
          return super.getRange(key, offset, length);
        }
      };
      RecordSource source = new RecordSource(() -> dev.quarry.core.sort.input.StoredInputs.of(List.of()), null, null,
          counted, new dev.quarry.core.sort.plan.PackSegments(
              List.of(new PlanSummary.ExtractPack(0, 1, "pack", records.length)),
              partition -> List.of(new SegmentTable.Segment(4L * partition, 4L * partition + 4))));
      source.fetch(0, Files.createDirectories(folder.resolve("segments")));
      assertThat(packBytesRead.get()).as("bytes of segment 0 fetched").isEqualTo(4);

      List<RecordEntry> entries = List.of(entry("a", 0), entry("b", 4));
      Path shard = folder.resolve("shard.tar");
      new ShardAssembly(source, 4).assemble(List.of(new PlannedShard(0, "x-0.tar", 0, 0)), Map.of(0L, entries),
          List.of(shard));

      assertThat(Files.readString(shard)).isEqualTo("aaaabbbb");
      assertThat(packBytesRead.get()).as("bytes read from the pack, segment 0's fetch included").isEqualTo(8);
    }
  }

  private static RecordEntry entry(String key, long offset) {
    return new RecordEntry(key, 0, (int) offset, true, List.of(new RawRange(offset, 4)), 4, null);
  }
}
