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
      new ShardAssembly(source, 4, Long.MAX_VALUE).assemble(List.of(new PlannedShard(0, "x-0.tar", 0, 0)),
          Map.of(0L, HeldEntries.of(entries)),
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
      source.keepStreamedBytes(new KeptBytes(folder.resolve("kept")));
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
        new ShardAssembly(source, 4, Long.MAX_VALUE).assemble(List.of(planned.get(shard)), Map.of((long) shard,
            HeldEntries.of(entries.get((long) shard))), List.of(file),
            shard < shards - 1); // a local copy is never kept again
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
      new ShardAssembly(source, 4, Long.MAX_VALUE).assemble(planned, held(entries), planned.stream()
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
   * What a batch's reads from the store stream past serves the later batches from local disk, byte for byte at its
   * place: 40 MiB of 64 KiB records, shuffled into 4 batches, come from the store about once (each batch streamed
   * nearly all of it before). The reads follow on from one another, from the object's start, so the kept bytes leave
   * no gap between two reads cut at 8 MiB that every later batch would fetch its records in with small reads (4 such
   * gaps here, 12 requests more over the 3 later batches); and the last batch keeps nothing.
   */
  @Test
  void laterBatchesReadWhatTheFirstStreamedPastFromLocalDisk() throws IOException, InterruptedException {
    int recordBytes = 64 << 10;
    int records = 640;
    byte[] input = new byte[records * recordBytes];
    new java.util.Random(7).nextBytes(input);
    Counted counted = counted(input);
    List<Integer> order = shuffled(records, 11);
    List<List<Integer>> batches = List.of(order.subList(0, 160), order.subList(160, 320), order.subList(320, 480),
        order.subList(480, 640));
    try (RecordSource source = counted.source()) {
      source.keepStreamedBytes(new KeptBytes(folder.resolve("kept")));
      long[] requests = new long[batches.size()];
      for (int batch = 0; batch < batches.size(); batch++) {
        long before = counted.requests.get();
        assemble(source, batch, batches.get(batch), recordBytes, input, batch < batches.size() - 1);
        requests[batch] = counted.requests.get() - before;
      }
      assertThat(counted.bytes.get()).as("bytes the store served, of %d", input.length)
          .isBetween((long) input.length, input.length + (long) recordBytes);
      assertThat(requests[1] + requests[2] + requests[3]).as("store requests of the later batches (the first's: %d)",
          requests[0]).isLessThanOrEqualTo(3);
      assertThat(Files.size(folder.resolve("kept"))).as("kept: the first 3 batches' reads")
          .isLessThanOrEqualTo(input.length);
    }
  }

  /**
   * One shard whose entries wait on disk is gathered a chunk of pieces at a time, and what a chunk's reads streamed
   * past serves the later chunks, as for batches: 40 MiB of 64 KiB records, shuffled into one shard gathered in 4
   * chunks of 160 pieces, come from the store about once (within 5%), and the shard is byte for byte its records in
   * order. Before, a shard's pieces were all gathered at once, however many, and a worker of a small budget ran out of
   * heap on a shard of 240,000 records ({@code ShardOfManyRecordsHeapTest}). A batch whose entries are all held is one
   * chunk, whatever the chunks' bound: cut, a batch that fits read the inputs again, since its first chunk, most of
   * the batch, passed over too few bytes to keep them.
   */
  @Test
  void aShardOfMorePiecesThanAChunkHoldsIsGatheredChunkByChunkFromWhatTheFirstStreamedPast() throws IOException,
      InterruptedException {
    int recordBytes = 64 << 10;
    int records = 640;
    byte[] input = new byte[records * recordBytes];
    new java.util.Random(5).nextBytes(input);
    Counted counted = counted(input);
    List<Integer> order = shuffled(records, 13);
    List<RecordEntry> entries = entriesOf(order, recordBytes);
    byte[] expected = inOrder(input, order, recordBytes);
    ShardEntries.Spool onDisk = new ShardEntries.Spool(folder.resolve("entries"), 0);
    try (RecordSource source = counted.source(); ShardEntries spilled = HeldEntries.of(onDisk, entries)) {
      source.keepStreamedBytes(new KeptBytes(folder.resolve("kept")));
      Path shard = folder.resolve("chunked.raw");
      new ShardAssembly(source, 4, 160 * ShardAssembly.PIECE_HEAP_BYTES).assemble(
          List.of(new PlannedShard(0, "x.tar", 0, 0)), Map.of(0L, spilled), List.of(shard), false);
      assertThat(Files.readAllBytes(shard)).isEqualTo(expected);
      assertThat(counted.bytes.get()).as("bytes the store served, of %d, in 4 chunks", input.length)
          .isBetween((long) input.length, input.length * 21L / 20);
      assertThat(source.keptBytesRead()).as("bytes the later chunks read where the first kept them")
          .isGreaterThanOrEqualTo(480L * recordBytes - 8L * (1 << 20));
    }

    Counted held = counted(input);
    try (RecordSource source = held.source()) {
      source.keepStreamedBytes(new KeptBytes(folder.resolve("kept-held")));
      Path shard = folder.resolve("held.raw");
      new ShardAssembly(source, 4, 160 * ShardAssembly.PIECE_HEAP_BYTES).assemble(
          List.of(new PlannedShard(0, "x.tar", 0, 0)), Map.of(0L, HeldEntries.of(entries)), List.of(shard), false);
      assertThat(Files.readAllBytes(shard)).isEqualTo(expected);
      assertThat(held.bytes.get()).as("bytes the store served for a batch held whole").isEqualTo(input.length);
      assertThat(Files.size(folder.resolve("kept-held"))).as("bytes kept: no chunk follows").isZero();
    }
  }

  /**
   * A piece held locally rides along with a read of the store that passes over it anyway: records 19 and 25 of
   * 64 KiB lie within 1 MiB of each other, so they are one read of records 19 to 25 (a request costs about what
   * streaming 1 MiB does), which brings record 23, kept by batch 0, too: it is not read again from the kept file.
   * And with no room to keep reads, nothing is kept: later batches read from the store, as before.
   */
  @Test
  void aHeldPieceRidesAlongAStoreReadThatPassesOverItAndNoRoomKeepsNothing() throws IOException,
      InterruptedException {
    int recordBytes = 64 << 10;
    byte[] input = new byte[40 * recordBytes];
    new java.util.Random(3).nextBytes(input);
    Counted counted = counted(input);
    try (RecordSource source = counted.source()) {
      source.keepStreamedBytes(new KeptBytes(folder.resolve("kept")));
      assemble(source, 0, List.of(20, 22, 24), recordBytes, input, true);
      assertThat(counted.bytes.get()).as("batch 0: records 20 to 24, kept").isEqualTo(5L * recordBytes);
      assemble(source, 1, List.of(19, 23, 25), recordBytes, input, true);
      assertThat(counted.requests.get()).as("requests of batches 0 and 1").isEqualTo(2);
      assertThat(counted.bytes.get()).as("batch 1: records 19 to 25").isEqualTo(12L * recordBytes);
      assertThat(source.keptBytesRead()).as("record 23 came with that read, not from the kept one").isZero();
      assemble(source, 2, List.of(21, 24), recordBytes, input, false);
      assertThat(counted.requests.get()).as("batch 2 from the kept reads alone").isEqualTo(2);
    }
    Files.delete(folder.resolve("kept"));
    Counted noRoom = counted(input);
    try (RecordSource source = noRoom.source()) {
      source.keepStreamedBytes(new KeptBytes(folder.resolve("kept"), 4L * recordBytes));
      assemble(source, 0, List.of(20, 22, 24), recordBytes, input, true);
      assemble(source, 1, List.of(21, 23), recordBytes, input, false);
      assertThat(source.keptBytesRead()).as("nothing kept: 5 records do not fit in 4").isZero();
      assertThat(noRoom.bytes.get()).isEqualTo(8L * recordBytes);
    }
  }

  /** A store of one object, {@code in.tar}, that is not local (a read across a gap streams it) and counts its reads. */
  private record Counted(RecordSource.InputList inputs, dev.quarry.core.store.ObjectStores stores, AtomicLong bytes,
      AtomicLong requests) {
    RecordSource source() {
      return new RecordSource(inputs, stores, null, null, null);
    }
  }

  private Counted counted(byte[] input) throws IOException {
    Path file = folder.resolve("in-" + System.nanoTime() + ".tar");
    Files.write(file, input);
    AtomicLong bytes = new AtomicLong();
    AtomicLong requests = new AtomicLong();
    var stores = new dev.quarry.core.store.ObjectStores(dev.quarry.core.store.S3Settings.defaults(),
        store -> new DelegatingStore(store) {
          @Override
          public InputStream getRange(String key, long offset, long length) throws IOException {
            bytes.addAndGet(length);
            requests.incrementAndGet();
            return super.getRange(key, offset, length);
          }

          @Override
          public boolean isLocal() {
            return false;
          }
        });
    return new Counted(() -> dev.quarry.core.sort.input.StoredInputs.of(List.of(
        new dev.quarry.core.sort.input.InputShard(0, file.toString(), dev.quarry.core.archive.ShardFormat.TAR))),
        stores, bytes, requests);
  }

  /** Assembles one shard of the records {@code records} of {@code input}, and checks its bytes. */
  private void assemble(RecordSource source, int batch, List<Integer> records, int recordBytes, byte[] input,
      boolean batchesFollow) throws IOException, InterruptedException {
    Path shard = folder.resolve("batch-" + batch);
    new ShardAssembly(source, 4, Long.MAX_VALUE).assemble(List.of(new PlannedShard(batch, "x.tar", 0, 0)),
        Map.of((long) batch, HeldEntries.of(entriesOf(records, recordBytes))), List.of(shard), batchesFollow);
    assertThat(Files.readAllBytes(shard)).as("batch %d", batch).isEqualTo(inOrder(input, records, recordBytes));
  }

  /** Record numbers 0 to {@code records} - 1, shuffled by {@code seed}. */
  private static List<Integer> shuffled(int records, long seed) {
    List<Integer> order = new java.util.ArrayList<>(java.util.stream.IntStream.range(0, records).boxed().toList());
    java.util.Collections.shuffle(order, new java.util.Random(seed));
    return order;
  }

  /** Entries of {@code records} of an input of {@code recordBytes}-byte records, in that order. */
  private static List<RecordEntry> entriesOf(List<Integer> records, int recordBytes) {
    return records.stream().map(record -> new RecordEntry("r" + record, 0, record, false,
        List.of(new RawRange((long) record * recordBytes, recordBytes)), recordBytes, null)).toList();
  }

  /** The bytes of {@code records} of {@code input}, one after the other: the shard they make. */
  private static byte[] inOrder(byte[] input, List<Integer> records, int recordBytes) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    for (int record : records) {
      bytes.write(input, record * recordBytes, recordBytes);
    }
    return bytes.toByteArray();
  }

  private static Map<Long, ShardEntries> held(Map<Long, List<RecordEntry>> entries) {
    Map<Long, ShardEntries> held = new java.util.HashMap<>();
    entries.forEach((shard, ofShard) -> held.put(shard, HeldEntries.of(ofShard)));
    return held;
  }

  private static RecordEntry entry(String key, long offset) {
    return new RecordEntry(key, 0, (int) offset, true, List.of(new RawRange(offset, 4)), 4, null);
  }
}
