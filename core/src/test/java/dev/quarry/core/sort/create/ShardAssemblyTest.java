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
          List.of(shard), false);

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
      source.keepStreamedBytesIn(folder);
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
            entries.get((long) shard)), List.of(file), shard < shards - 1); // a local copy is never kept again
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
          .map(shard -> folder.resolve("all-" + shard.index() + ".raw")).toList(), false);
      assertThat(source.localCopyBytesRead() - before).as("bytes read by one batch of every shard")
          .isEqualTo(bytes.length);
      assertThat(source.localCopyFilesOpened()).as("opens of the local copy, for every read of it").isEqualTo(1);
      assertThat(source.keptBytesRead()).as("reads of a local copy kept again").isZero();
      assertThat(Files.size(folder.resolve("kept"))).as("bytes of a local copy kept again").isZero();
      source.close();
    }
  }

  /**
   * What a batch's read from the store streamed past serves the next batch from local disk, and a read of the store
   * stops where kept bytes begin: the next batch's records before and after a kept read were merged into one read
   * across it (the bytes between them under 1 MiB), which streamed the kept bytes again (1.25 times the input in
   * {@code SortContract.aCreateWorkerWhoseShardsTakeSeveralBatchesReadsEachInputOnce}). The last batch keeps nothing.
   */
  @Test
  void aBatchReadsWhatAnEarlierBatchStreamedPastFromLocalDiskAndNeverStreamsItAgain() throws IOException,
      InterruptedException {
    int recordBytes = 1 << 10;
    byte[] input = new byte[10 * recordBytes];
    for (int i = 0; i < input.length; i++) {
      input[i] = (byte) (i / recordBytes);
    }
    Files.write(folder.resolve("in.tar"), input);
    AtomicLong storeBytesRead = new AtomicLong();
    try (var stores = new dev.quarry.core.store.ObjectStores(dev.quarry.core.store.S3Settings.defaults(),
        store -> new DelegatingStore(store) {
          @Override
          public InputStream getRange(String key, long offset, long length) throws IOException {
            storeBytesRead.addAndGet(length);
            return super.getRange(key, offset, length);
          }
        });
        RecordSource source = new RecordSource(List.of(new dev.quarry.core.sort.input.InputShard(0,
            folder.resolve("in.tar").toString(), dev.quarry.core.archive.ShardFormat.TAR)), stores, null)) {
      source.keepStreamedBytesIn(folder);
      int[][] batches = {{2, 4, 6}, {0, 3, 9}, {5}};
      for (int batch = 0; batch < batches.length; batch++) {
        List<RecordEntry> records = java.util.Arrays.stream(batches[batch])
            .mapToObj(record -> new RecordEntry("r" + record, 0, record, false,
                List.of(new RawRange((long) record * recordBytes, recordBytes)), recordBytes, null))
            .toList();
        Path shard = folder.resolve("batch-" + batch);
        long before = storeBytesRead.get();
        new ShardAssembly(source, 4).assemble(List.of(new PlannedShard(batch, "x.tar", 0, 0)),
            Map.of((long) batch, records), List.of(shard), batch < batches.length - 1);
        byte[] written = Files.readAllBytes(shard);
        for (int i = 0; i < batches[batch].length; i++) {
          assertThat(written[i * recordBytes]).as("record %d of batch %d", i, batch)
              .isEqualTo((byte) batches[batch][i]);
        }
        if (batch == 0) {
          assertThat(storeBytesRead.get() - before).as("batch 0: records 2 to 6, gaps and all")
              .isEqualTo(5 * recordBytes);
        }
        if (batch == 1) {
          assertThat(storeBytesRead.get() - before).as("batch 1: records 0 and 9, each alone; 3 was kept")
              .isEqualTo(2 * recordBytes);
          assertThat(source.keptBytesRead()).isEqualTo(recordBytes);
        }
      }
      assertThat(source.keptBytesRead()).as("record 5 from the kept read").isEqualTo(2 * recordBytes);
      assertThat(Files.size(folder.resolve("kept"))).as("only batch 0's read kept: batch 1's were all records")
          .isEqualTo(5 * recordBytes);
    }
  }

  private static RecordEntry entry(String key, long offset) {
    return new RecordEntry(key, 0, (int) offset, true, List.of(new RawRange(offset, 4)), 4, null);
  }
}
