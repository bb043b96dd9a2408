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
      source.close();
    }
  }

  /**
   * A create worker's batches each take a share of its partition's shards, whose records lie spread through the local
   * copy of each segment (a shuffle): a batch reads its own records from the copy, not the whole copy. Before, its
   * reads were merged across gaps of up to 1 MiB, as for the store, so each of 4 batches of one record in 4 read
   * every record of the copy between its first and its last (1,900,544 bytes for 524,288); a batch of every shard
   * reads the copy once. The copy's file is opened once, when fetched, for all its reads (an open, an fstat and a close
   * a read cost about 10 us, more than a read of a small record).
   */
  @Test
  void eachBatchReadsItsOwnRecordsFromTheLocalCopyOfASegmentNotTheWholeCopy() throws IOException,
      InterruptedException {
    int recordBytes = 16 << 10;
    int records = 32;
    int shards = 4;
    try (FileStore files = new FileStore(folder.resolve("store"))) {
      byte[] bytes = new byte[records * recordBytes];
      for (int i = 0; i < bytes.length; i++) {
        bytes[i] = (byte) (i / recordBytes);
      }
      files.put("pack", ByteBuffer.allocate(bytes.length + 2 * Long.BYTES).put(bytes).putLong(0)
          .putLong(bytes.length).array());
      RecordSource source = new RecordSource(() -> dev.quarry.core.sort.input.StoredInputs.of(List.of()), null, null,
          files, new dev.quarry.core.sort.plan.PackSegments(
              List.of(new PlanSummary.ExtractPack(0, 1, "pack", bytes.length)),
              partition -> List.of(new SegmentTable.Segment(0, bytes.length))));
      source.fetch(0, Files.createDirectories(folder.resolve("segments")));
      List<PlannedShard> planned = new java.util.ArrayList<>();
      Map<Long, List<RecordEntry>> entries = new java.util.HashMap<>();
      for (int shard = 0; shard < shards; shard++) {
        planned.add(new PlannedShard(shard, "x-" + shard + ".tar", 0, 0));
        entries.put((long) shard, new java.util.ArrayList<>());
      }
      for (int record = 0; record < records; record++) {
        entries.get((long) (record % shards)).add(new RecordEntry("r" + record, 0, record, true,
            List.of(new RawRange((long) record * recordBytes, recordBytes)), recordBytes, null));
      }
      for (int shard = 0; shard < shards; shard++) { // a batch of one shard each
        Path file = folder.resolve(shard + ".raw");
        new ShardAssembly(source, 4).assemble(List.of(planned.get(shard)), Map.of((long) shard,
            entries.get((long) shard)), List.of(file));
        byte[] written = Files.readAllBytes(file);
        assertThat(written).hasSize(records / shards * recordBytes);
        for (int i = 0; i < records / shards; i++) {
          assertThat(written[i * recordBytes]).as("record %d of shard %d", i, shard).isEqualTo((byte) (i * shards
              + shard));
        }
      }
      assertThat(source.localCopyBytesRead()).as("bytes read from the local copy by 4 batches of one shard")
          .isEqualTo(bytes.length);

      long before = source.localCopyBytesRead();
      new ShardAssembly(source, 4).assemble(planned, entries, planned.stream()
          .map(shard -> folder.resolve("all-" + shard.index() + ".raw")).toList());
      assertThat(source.localCopyBytesRead() - before).as("bytes read by one batch of every shard")
          .isEqualTo(bytes.length);
      assertThat(source.localCopyFilesOpened()).as("opens of the local copy, for every read of it").isEqualTo(1);
      source.close();
    }
  }

  private static RecordEntry entry(String key, long offset) {
    return new RecordEntry(key, 0, (int) offset, true, List.of(new RawRange(offset, 4)), 4, null);
  }
}
