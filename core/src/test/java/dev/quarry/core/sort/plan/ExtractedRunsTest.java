package dev.quarry.core.sort.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.StoredJson;
import dev.quarry.core.sort.extract.ExtractResult;
import dev.quarry.core.sort.order.KeyOrder;
import dev.quarry.core.sort.records.ExternalSorter;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.records.RunMerger;
import dev.quarry.core.sort.records.RunWriter;
import dev.quarry.core.sort.records.StoreRunStorage;
import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.ObjectStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExtractedRunsTest {
  private static final int PARTITIONS = 4;
  private static final int WORKERS = 3;

  @TempDir Path temp;

  private static RecordEntry entry(String key, int shard, int position) {
    return new RecordEntry(key, shard, position, false, List.of(new RawRange(1024L * position, 512)), 512, null);
  }

  /**
   * Workers that spilled many times, partition 3 held by the first half of their spills alone (so their markers count
   * runs in several pairs) and by no record of the middle worker: each partition's merge reads exactly the runs the
   * markers count, in key order, never a run of another attempt of the worker, and lists nothing; a run it counts that
   * is not there is named, worker, partition and number.
   */
  @Test
  void aPartitionsMergeReadsTheRunsTheMarkersCountAndNoOtherWithoutAListing() throws Exception {
    AtomicInteger listings = new AtomicInteger();
    ObjectStore store = DelegatingStore.withHook(new FileStore(temp), (kind, key) -> {
      if (kind.equals("LIST")) {
        listings.incrementAndGet();
      }
    });
    Scratch scratch = new Scratch("job/");
    StoreRunStorage storage = new StoreRunStorage(store);
    List<List<RecordEntry>> expected = new ArrayList<>();
    for (int partition = 0; partition < PARTITIONS; partition++) {
      expected.add(new ArrayList<>());
    }
    Random random = new Random(7);
    for (int worker = 0; worker < WORKERS; worker++) {
      int index = worker;
      UUID stale = UUID.randomUUID(); // an attempt killed before its marker: its runs are never read
      for (int partition = 0; partition < PARTITIONS; partition++) {
        try (RunWriter writer = new RunWriter(storage.create(scratch.extractRun(index, stale, partition, PARTITIONS,
            0)))) {
          writer.write(entry("stale", index, 0));
          writer.finish();
        }
      }
      UUID attempt = UUID.randomUUID();
      ExternalSorter sorter = new ExternalSorter(KeyOrder.ENTRIES, storage,
          (partition, number) -> scratch.extractRun(index, attempt, partition, PARTITIONS, number), 3_000,
          PARTITIONS, entry -> Integer.parseInt(entry.key().substring(0, 1)));
      for (int position = 0; position < 400; position++) {
        int partition = position < 200 && position % 5 == 0 && index != 1 ? 3 : random.nextInt(3);
        RecordEntry entry = entry(partition + "/" + random.nextInt(1_000_000), index, position);
        sorter.add(entry);
        expected.get(partition).add(entry);
      }
      List<List<String>> written = sorter.finishPartitioned();
      int runs = written.stream().mapToInt(List::size).sum();
      ExtractResult done = new ExtractResult(index, WORKERS, PARTITIONS, index, index + 1, 1, 0, 400, 0, 0,
          attempt.toString(), runs, ExtractResult.runsByPartition(written), 0, 0, null, 0, null, null, 0);
      assertThat(done.runsByPartition()).as("pairs of run counts").hasSizeGreaterThan(1);
      assertThat(done.runsOf(0)).as("runs of partition 0").isGreaterThan(RunMerger.FAN_IN / WORKERS);
      assertThat(done.runsOf(3) > 0).as("runs of partition 3 by worker " + index).isEqualTo(index != 1);
      StoredJson.write(store, scratch.extractDone(index), done);
    }
    listings.set(0);

    ExtractedRuns extracted = ExtractedRuns.read(store, scratch, WORKERS, WORKERS, "partition");
    AtomicInteger passRuns = new AtomicInteger();
    for (int partition = 0; partition < PARTITIONS; partition++) {
      List<RecordEntry> merged = new ArrayList<>();
      try (RunMerger merger = extracted.merged(partition, storage, storage,
          () -> "job/pass-" + passRuns.getAndIncrement())) {
        for (RecordEntry entry = merger.next(); entry != null; entry = merger.next()) {
          merged.add(entry);
        }
      }
      List<RecordEntry> sorted = new ArrayList<>(expected.get(partition));
      sorted.sort(KeyOrder.ENTRIES);
      assertThat(merged).as("partition " + partition).isEqualTo(sorted);
    }
    assertThat(listings).as("listings").hasValue(0);

    ExtractResult done = StoredJson.read(store, scratch.extractDone(2), ExtractResult.class);
    store.delete(scratch.extractRun(2, UUID.fromString(done.attempt()), 3, PARTITIONS, done.runsOf(3) - 1));
    assertThatThrownBy(() -> extracted.merged(3, storage, storage, () -> "job/pass-" + passRuns.getAndIncrement()))
        .hasMessage("Cannot partition: run " + (done.runsOf(3) - 1) + " of partition 3 of extract worker 2, which"
            + " its done marker names, does not exist (the scratch was changed; clean it and sort again)");
  }
}
