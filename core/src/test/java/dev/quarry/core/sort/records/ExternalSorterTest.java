package dev.quarry.core.sort.records;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.sort.order.KeyOrder;
import dev.quarry.testkit.SmallDisk;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExternalSorterTest {
  @TempDir Path temp;

  static RecordEntry entry(String key, int shard, int position, Object content) {
    return new RecordEntry(key, shard, position, position % 2 == 0,
        List.of(new RawRange(1024L * position, 1536), new RawRange(1L << 40, 512)), 2048, content);
  }

  @Test
  void entriesRoundTripThroughARunIncludingEveryContentType() throws Exception {
    List<RecordEntry> entries = List.of(entry("a/b", 0, 0, null), entry("données/é", 7, 123456, 42L),
        entry("x", 3, 1, 2.5), entry("y", 3, 2, "label"), entry("z".repeat(300), Integer.MAX_VALUE, 9, -7L));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (RunWriter writer = new RunWriter(into(bytes))) {
      for (RecordEntry e : entries) {
        writer.write(e);
      }
      writer.finish();
    }
    List<RecordEntry> read = new ArrayList<>();
    try (RunReader reader = new RunReader(new ByteArrayInputStream(bytes.toByteArray()), "test")) {
      for (RecordEntry e = reader.next(); e != null; e = reader.next()) {
        read.add(e);
      }
    }
    assertThat(read).isEqualTo(entries);
  }

  /** A run written to {@code bytes}: visible to the test whether committed or not. */
  private static RunOutput into(ByteArrayOutputStream bytes) {
    return new RunOutput() {
      @Override
      public java.io.OutputStream stream() {
        return bytes;
      }

      @Override
      public void commit() {}

      @Override
      public void close() {}
    };
  }

  @Test
  void aRunWriterClosedWithoutFinishLeavesNoRun(@TempDir Path runs) throws Exception {
    LocalRunStorage storage = new LocalRunStorage(runs);
    assertThatThrownBy(() -> {
      try (RunWriter writer = new RunWriter(storage.create("run-1"))) {
        writer.write(entry("a", 0, 0, null));
        throw new IllegalStateException("the writer failed");
      }
    }).hasMessage("the writer failed");
    try (RunWriter writer = new RunWriter(storage.create("run-2"))) {
      writer.write(entry("b", 0, 0, null));
      writer.finish();
    }
    assertThat(storage.list("run-")).containsExactly("run-2");
  }

  @Test
  void aRunWithoutItsEndMarkerIsRefused() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RunWriter writer = new RunWriter(into(bytes));
    writer.write(entry("a", 0, 0, null));
    byte[] whole;
    writer.finish();
    whole = bytes.toByteArray();
    byte[] cut = Arrays.copyOf(whole, whole.length - 12);
    assertThatThrownBy(() -> {
      try (RunReader reader = new RunReader(new ByteArrayInputStream(cut), "run-7")) {
        while (reader.next() != null) {
          // read on
        }
      }
    }).hasMessageStartingWith("Cannot read run run-7: ");
  }

  @Test
  void sortsMoreThanTheBudgetBySpillingRunsAndMerging() throws Exception {
    Random random = new Random(3);
    List<RecordEntry> entries = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      entries.add(entry("k" + random.nextInt(1_000_000), random.nextInt(50), i, null));
    }
    ExternalSorter sorter = new ExternalSorter(KeyOrder.ENTRIES, new LocalRunStorage(temp), "sort-", 200_000);
    for (RecordEntry e : entries) {
      sorter.add(e);
    }
    List<RecordEntry> sorted = new ArrayList<>();
    try (RunMerger merger = sorter.sorted()) {
      for (RecordEntry e = merger.next(); e != null; e = merger.next()) {
        sorted.add(e);
      }
    }
    assertThat(sorter.finish().size()).as("runs spilled").isGreaterThan(10);
    assertThat(sorter.peakBufferedBytes()).isLessThan(200_000 + 1_000);
    List<RecordEntry> expected = new ArrayList<>(entries);
    expected.sort(KeyOrder.ENTRIES);
    assertThat(sorted).isEqualTo(expected);
  }

  /**
   * A partitioned sorter numbers each partition's runs from 0 on its own, so that the partition's runs are its first
   * names whatever the spills held of the others: partition 2, in few spills, has fewer runs, numbered 0 on.
   */
  @Test
  void aPartitionedSorterNumbersEachPartitionsRunsFromZero() throws Exception {
    Random random = new Random(11);
    LocalRunStorage storage = new LocalRunStorage(temp);
    ExternalSorter sorter = new ExternalSorter(KeyOrder.ENTRIES, storage,
        (partition, number) -> String.format("run-%d-%d", partition, number), 4_000, 3,
        entry -> entry.shard());
    List<List<RecordEntry>> expected = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    for (int i = 0; i < 2_000; i++) {
      int partition = i % 50 == 0 ? 2 : random.nextInt(2);
      RecordEntry entry = entry("k" + random.nextInt(1_000_000), partition, i, null);
      sorter.add(entry);
      expected.get(partition).add(entry);
    }
    List<List<String>> runs = sorter.finishPartitioned();
    assertThat(runs.get(2).size()).as("runs of partition 2").isPositive().isLessThan(runs.get(0).size());
    java.util.concurrent.atomic.AtomicInteger passes = new java.util.concurrent.atomic.AtomicInteger();
    for (int partition = 0; partition < 3; partition++) {
      int p = partition;
      assertThat(runs.get(partition)).as("partition " + partition).isEqualTo(
          java.util.stream.IntStream.range(0, runs.get(partition).size()).mapToObj(n -> "run-" + p + "-" + n)
              .toList());
      List<RecordEntry> merged = new ArrayList<>();
      try (RunMerger merger = RunMerger.open(storage, runs.get(partition), KeyOrder.ENTRIES,
          () -> "pass-" + passes.getAndIncrement())) {
        for (RecordEntry e = merger.next(); e != null; e = merger.next()) {
          merged.add(e);
        }
      }
      List<RecordEntry> sorted = new ArrayList<>(expected.get(partition));
      sorted.sort(KeyOrder.ENTRIES);
      assertThat(merged).as("partition " + partition).isEqualTo(sorted);
    }
  }

  /**
   * A sorter that stages its spills on local disk leaves one run per partition that has entries in its storage,
   * numbered 0, however often it spilled (partition 0 here past the fan-in, so merged in passes), holding the
   * partition's entries in order; the staged runs are gone, each pass's as it is merged. One whose entries fit writes
   * to its storage at once.
   */
  @Test
  void aSorterStagingItsSpillsLeavesOneRunPerPartitionInItsStorage() throws Exception {
    Random random = new Random(13);
    LocalRunStorage storage = new LocalRunStorage(java.nio.file.Files.createDirectories(temp.resolve("store")));
    java.util.concurrent.atomic.AtomicBoolean finishing = new java.util.concurrent.atomic.AtomicBoolean();
    List<Integer> onDiskAtEachPass = java.util.Collections.synchronizedList(new ArrayList<>());
    LocalRunStorage local = new LocalRunStorage(java.nio.file.Files.createDirectories(temp.resolve("local"))) {
      @Override
      public RunOutput create(String name) throws java.io.IOException {
        if (finishing.get() && name.startsWith("local-0-")) {
          onDiskAtEachPass.add(list("local-0-").size());
        }
        return super.create(name);
      }
    };
    ExternalSorter sorter = new ExternalSorter(KeyOrder.ENTRIES, storage,
        (partition, number) -> String.format("run-%d-%d", partition, number), 4_000, 4, RecordEntry::shard)
        .stagingSpillsIn(local, (partition, number) -> String.format("local-%d-%d", partition, number));
    List<List<RecordEntry>> expected = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
        new ArrayList<>());
    for (int i = 0; i < 12_000; i++) {
      int partition = i % 100 == 0 ? 2 : random.nextInt(2); // partition 3 holds nothing
      RecordEntry entry = entry("k" + random.nextInt(1_000_000), partition, i, null);
      sorter.add(entry);
      expected.get(partition).add(entry);
    }
    assertThat(local.list("local-0-").size()).as("spills of partition 0 staged").isGreaterThan(RunMerger.FAN_IN);
    assertThat(storage.list("")).as("nothing in the storage before the finish").isEmpty();
    int stagedOf0 = local.list("local-0-").size();
    finishing.set(true);
    List<List<String>> runs = sorter.finishPartitioned();
    assertThat(onDiskAtEachPass.getLast()).as("runs of partition 0 on the disk as its last pass began, of %d: a"
        + " pass's input goes once merged", stagedOf0).isLessThan(stagedOf0);
    assertThat(runs).isEqualTo(List.of(List.of("run-0-0"), List.of("run-1-0"), List.of("run-2-0"), List.of()));
    assertThat(storage.list("")).containsExactly("run-0-0", "run-1-0", "run-2-0");
    assertThat(local.list("")).as("staged runs deleted").isEmpty();
    for (int partition = 0; partition < 3; partition++) {
      List<RecordEntry> sorted = new ArrayList<>(expected.get(partition));
      sorted.sort(KeyOrder.ENTRIES);
      assertThat(read(storage, runs.get(partition).getFirst())).as("partition " + partition).isEqualTo(sorted);
    }

    LocalRunStorage fitting = new LocalRunStorage(java.nio.file.Files.createDirectories(temp.resolve("fits")));
    ExternalSorter small = new ExternalSorter(KeyOrder.ENTRIES, fitting,
        (partition, number) -> String.format("run-%d-%d", partition, number), 1 << 20, 2, RecordEntry::shard)
        .stagingSpillsIn(local, (partition, number) -> String.format("local-%d-%d", partition, number));
    small.add(entry("b", 1, 0, null));
    small.add(entry("a", 1, 1, null));
    assertThat(small.finishPartitioned()).isEqualTo(List.of(List.of(), List.of("run-1-0")));
    assertThat(read(fitting, "run-1-0")).extracting(RecordEntry::key).containsExactly("a", "b");
    assertThat(local.list("")).as("nothing staged").isEmpty();
  }

  /**
   * A staging sorter merges partitions side by side while their readers and uploads fit its budget: here each
   * partition's merge takes about 21.7 MiB (its storage holds 20 MiB an upload), so a 50 MiB budget runs 2 at once and
   * never 3. Before, the merges' memory counted 9 MiB for any upload and 1.6 MiB for any reader, and ran up to 4.
   */
  @Test
  @org.junit.jupiter.api.Timeout(60) // a permit not given back would hang the next merges
  void stagedMergesRunSideBySideAsTheBudgetAllows() throws Exception {
    java.util.concurrent.atomic.AtomicInteger writing = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger mostAtOnce = new java.util.concurrent.atomic.AtomicInteger();
    LocalRunStorage target = new LocalRunStorage(java.nio.file.Files.createDirectories(temp.resolve("store"))) {
      @Override
      public RunOutput create(String name) throws java.io.IOException {
        RunOutput output = super.create(name);
        mostAtOnce.accumulateAndGet(writing.incrementAndGet(), Math::max);
        long until = System.nanoTime() + 300_000_000L; // time for a third merge to start, were it let
        while (writing.get() < 3 && System.nanoTime() < until) {
          try {
            Thread.sleep(1); // a virtual thread's sleep frees its carrier for the others
          } catch (InterruptedException e) {
            throw new java.io.InterruptedIOException();
          }
        }
        return new RunOutput() {
          @Override
          public java.io.OutputStream stream() {
            return output.stream();
          }

          @Override
          public void commit() throws java.io.IOException {
            output.commit();
          }

          @Override
          public void close() throws java.io.IOException {
            writing.decrementAndGet();
            output.close();
          }
        };
      }

      @Override
      public long writeBufferBytes(long size) {
        return 20L << 20;
      }
    };
    LocalRunStorage local = new LocalRunStorage(java.nio.file.Files.createDirectories(temp.resolve("local")));
    ExternalSorter sorter = new ExternalSorter(KeyOrder.ENTRIES, target,
        (partition, number) -> String.format("run-%d-%d", partition, number), 50L << 20, 6, RecordEntry::shard)
        .stagingSpillsIn(local, (partition, number) -> String.format("local-%d-%d", partition, number));
    Random random = new Random(3);
    for (int i = 0; i < 300_000; i++) {
      sorter.add(entry("k" + random.nextInt(1_000_000), i % 6, i, null));
    }
    assertThat(sorter.stagedRuns()).as("spilled once before the finish").isEqualTo(6);
    assertThat(sorter.finishPartitioned()).allSatisfy(runs -> assertThat(runs).hasSize(1));
    assertThat(mostAtOnce.get()).as("merges writing at once").isEqualTo(2);
  }

  /** A full disk under a worker's spills says what it is and what to do, in one line. */
  @Test
  void aFullDiskUnderOwnRunsSaysWhatToDo() throws Exception {
    try (SmallDisk disk = SmallDisk.mount(temp.resolve("small"), "256k")) {
      var network = new dev.quarry.core.store.DelegatingStore(new dev.quarry.core.store.FileStore(temp.resolve("s3"))) {
        @Override
        public boolean isLocal() {
          return false;
        }
      };
      RunStorage own = StoreRunStorage.ownRuns(network, disk.folder());
      ExternalSorter sorter = new ExternalSorter(KeyOrder.ENTRIES, new LocalRunStorage(temp), "run-", 4_000)
          .stagingSpillsIn(own, (partition, number) -> String.format("local-%06d", number));
      Random random = new Random(5);
      assertThatThrownBy(() -> {
        for (int i = 0; i < 400_000; i++) {
          sorter.add(entry("k" + random.nextLong(), 0, i, null));
        }
      }).isInstanceOf(java.io.IOException.class)
          .hasMessageStartingWith("Cannot keep sorted record entries on this worker's disk (")
          .hasMessageContaining("No space left on device")
          .hasMessageEndingWith("): give its temporary folder more room")
          .message().doesNotContain("\n");
    }
  }

  private static List<RecordEntry> read(RunStorage storage, String run) throws Exception {
    List<RecordEntry> entries = new ArrayList<>();
    try (RunReader reader = new RunReader(storage.open(run), run)) {
      for (RecordEntry e = reader.next(); e != null; e = reader.next()) {
        entries.add(e);
      }
    }
    return entries;
  }

  @Test
  void moreRunsThanTheFanInAreMergedInPassesWhoseRunsAreDeletedOnceRead() throws Exception {
    Random random = new Random(5);
    List<RecordEntry> entries = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      entries.add(entry("k" + random.nextInt(1_000_000), random.nextInt(50), i, null));
    }
    LocalRunStorage storage = new LocalRunStorage(temp);
    ExternalSorter sorter = new ExternalSorter(KeyOrder.ENTRIES, storage, "sort-", 4_000); // three levels of merges
    for (RecordEntry e : entries) {
      sorter.add(e);
    }
    List<RecordEntry> sorted = new ArrayList<>();
    try (RunMerger merger = sorter.sorted()) {
      for (RecordEntry e = merger.next(); e != null; e = merger.next()) {
        sorted.add(e);
      }
    }
    List<String> spilled = sorter.finish();
    assertThat(spilled.size()).as("runs spilled").isGreaterThan(RunMerger.FAN_IN * RunMerger.FAN_IN);
    List<RecordEntry> expected = new ArrayList<>(entries);
    expected.sort(KeyOrder.ENTRIES);
    assertThat(sorted).isEqualTo(expected);
    assertThat(storage.list("sort-")).as("only the spilled runs are left").isEqualTo(spilled);
  }

  @Test
  void keysCompareByCodePointLikeUtf8Bytes() {
    // U+FF5E (UTF-16 0xFF5E) sorts after U+1F600 in UTF-16 units but before it in UTF-8 bytes and code points.
    assertThat(KeyOrder.compareKeys("\uFF5E", "\uD83D\uDE00")).isNegative();
    assertThat("\uFF5E".compareTo("\uD83D\uDE00")).as("what String.compareTo would say").isPositive();
    assertThat(KeyOrder.compareKeys("a", "ab")).isNegative();
    assertThat(KeyOrder.compareKeys("a-b", "a/b")).isNegative();
  }
}
