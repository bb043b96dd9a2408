package dev.quarry.core.sort.extract;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.json.Json;
import dev.quarry.core.sort.StoredJson;
import dev.quarry.core.policy.Problems;
import dev.quarry.core.sort.Progress;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.fs.WorkFolder;
import dev.quarry.core.sort.input.InputShard;
import dev.quarry.core.sort.input.InputShards;
import dev.quarry.core.sort.input.StoredInputs;
import dev.quarry.core.sort.order.KeyOrder;
import dev.quarry.core.sort.plan.Partitioner;
import dev.quarry.core.sort.plan.SharedSplitters;
import dev.quarry.core.sort.records.ExternalSorter;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.records.StoreRunStorage;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.commons.io.function.IOFunction;

/**
 * Phase 1: extract worker {@code index} of {@code count} reads its contiguous share of the input shards and writes
 * its records' entries as runs sorted by key under scratch: one run per partition that holds entries, its spills
 * merged on the worker's disk (with a local scratch, one run per partition at each spill). Rerunning an index whose
 * done marker exists does nothing; one done with another {@code count} (another split of the inputs) is done again;
 * rerunning one that died starts it over, with runs of its own ({@link Scratch#extractRun}), whatever the other
 * attempt left or still writes.
 */
public final class ExtractPhase {
  /** The problem kind counted for a missing input shard. */
  public static final String MISSING_SHARD = "missingShard";
  /** Input shards read at once by one worker: enough to hide object store latency. */
  private static final int SHARDS_IN_FLIGHT = 4;

  private final SortSpec spec;
  private final ObjectStores stores;
  private final ObjectStore scratchStore;
  private final Scratch scratch;
  private final PackStore packs;
  private final boolean inOneProcess;
  private final Duration splittersWait;
  private final PrintStream log;
  /** Held while a shard's entries go into the sorter, one shard at a time. */
  private final ReentrantLock sorterLock = new ReentrantLock();

  /** {@code splittersWait}: how long an index other than 0 waits for index 0's splitters ({@link SharedSplitters}). */
  public ExtractPhase(SortSpec spec, ObjectStores stores, Location scratchRoot, PackStore packs,
      boolean inOneProcess, Duration splittersWait, PrintStream log) {
    this.spec = spec;
    this.splittersWait = splittersWait;
    this.stores = stores;
    this.scratchStore = scratchRoot.store();
    this.scratch = new Scratch(scratchRoot.key());
    this.packs = packs;
    this.inOneProcess = inOneProcess;
    this.log = log;
  }

  /** Extracts this index's share, its runs split into {@code partitions} by {@link Partitioner}. */
  public ExtractResult run(int index, int count, int partitions, Problems problems)
      throws IOException, InterruptedException {
    Optional<ExtractResult> earlier = StoredJson.readIfPresent(scratchStore, scratch.extractDone(index),
        ExtractResult.class);
    if (earlier.isPresent()) {
      ExtractResult done = earlier.get();
      if (done.count() == count && done.partitions() == partitions) {
        log.printf("extract %d/%d: already done%n", index, count);
        return done;
      }
      // Done for another split of the inputs or of the records: its runs are not this one's, so start over.
      log.printf("extract %d/%d: done before with --count %d --partitions %d, extracting again%n", index, count,
          done.count(), done.partitions());
    }
    StoreRunStorage runs = new StoreRunStorage(scratchStore);
    List<InputShard> inputs = InputShards.resolve(spec.input(), stores);
    if (index == 0) {
      StoredInputs.write(scratchStore, scratch, inputs);
    }
    // Index 0 draws the sample and shares its splitters; the others use them (or, when they do not come, draw the
    // same sample): a key's partition depends on nothing else.
    Partitioner partitioner = Partitioner.sampled(spec, stores, inputs, partitions,
        new SharedSplitters(scratchStore, scratch, index, splittersWait));
    int from = (int) ((long) inputs.size() * index / count);
    int to = (int) ((long) inputs.size() * (index + 1) / count);
    List<InputShard> mine = inputs.subList(from, to);
    Set<InputShard> missing = missingShards(mine, problems);

    // The budget is shared between record metadata (the sorter) and the shards in flight.
    UUID attempt = UUID.randomUUID();
    Progress progress = new Progress("extract " + index + "/" + count, mine.size(), log);
    long[] totals = new long[4]; // missing shards, input bytes, record bytes, shards grouped on disk
    String packName = null;
    long packRecordBytes = 0;
    ExternalSorter sorter = new ExternalSorter(KeyOrder.ENTRIES, runs,
        (partition, number) -> scratch.extractRun(index, attempt, partition, partitions, number),
        spec.workers().memory().entryBytes(), partitions, partitioner::stepOf);
    List<List<String>> written;
    try (WorkFolder work = WorkFolder.create(Path.of(System.getProperty("java.io.tmpdir")), "quarry-extract-")) {
      if (!scratchStore.isLocal()) {
        // Spills wait on this worker's disk and leave one run per partition in scratch (ExternalSorter): a local
        // scratch gains nothing from it, its runs cost no request.
        sorter.stagingSpillsIn(StoreRunStorage.ownRuns(scratchStore, work.path()),
            (partition, number) -> String.format("%05d-%06d.run", partition, number));
      }
      // The pack's local segments go once uploaded, before the spills are merged on the same disk.
      try (PartitionPacks partitionPacks = partitioner.spreads()
          ? new PartitionPacks(work.path().resolve("packs"), partitions, from) : null) {
        long groupingBytes = spec.workers().memory().groupingBytes(SHARDS_IN_FLIGHT);
        ShardExtractor extractor = partitionPacks != null
            ? new ShardExtractor(spec, partitionPacks.spool(), ShardExtractor.Packing.ALL_TARS, problems, work.path(),
                groupingBytes)
            : new ShardExtractor(spec, packs.spoolingIn(work.path()), ShardExtractor.Packing.TARS_NOT_READABLE_AGAIN,
                problems, work.path(), groupingBytes);
        extractShards(mine, missing, extractor, partitionPacks, partitioner, sorter, progress, problems, totals);
        if (partitionPacks != null) {
          packName = scratch.partitionPack(index, attempt);
          packRecordBytes = partitionPacks.upload(scratchStore, packName);
        }
      }
      if (sorter.stagedRuns() > 0) {
        log.printf("extract %d/%d: merging its spilled record entries into one run per partition%n", index, count);
      }
      written = sorter.finishPartitioned();
    }
    progress.print(true);
    ExtractResult result = new ExtractResult(index, count, partitions, from, to, mine.size(), (int) totals[0],
        sorter.entries(), totals[2], totals[1], attempt.toString(), written.stream().mapToInt(List::size).sum(),
        ExtractResult.runsByPartition(written), sorter.peakBufferedBytes(), sorter.bytesPerEntry(), packName,
        packRecordBytes, ExtractResult.splittersSha256(partitioner.splitters()), partitioner.keymapSha256(),
        (int) totals[3]);
    StoredJson.write(scratchStore, scratch.extractDone(index), result);
    return result;
  }

  private void extractShards(List<InputShard> mine, Set<InputShard> missing, ShardExtractor extractor,
      PartitionPacks partitionPacks, Partitioner partitioner, ExternalSorter sorter, Progress progress,
      Problems problems, long[] totals) throws IOException, InterruptedException {
    InFlight.inOrder(mine, SHARDS_IN_FLIGHT, shard -> {
      try {
        if (missing.contains(shard)) {
          synchronized (totals) {
            totals[0]++;
          }
          progress.shardDone(0, 0);
        } else {
          extractShard(shard, extractor, partitionPacks, partitioner, sorter, progress, problems, totals);
        }
      } finally {
        if (partitionPacks != null) {
          partitionPacks.pass(shard.index()); // one that failed or went missing lets the next ones move
        }
      }
      return null;
    });
  }

  /**
   * This worker's input shards that do not exist, found by a HEAD of each (many at once) before any is read, and
   * handled by the missing-shards policy in input order: an abort fails at once, naming the shard, rather than
   * after reading the others. A listed prefix found its shards by listing, so they are not asked again. A shard
   * deleted after this check is still handled when it is read.
   */
  private Set<InputShard> missingShards(List<InputShard> mine, Problems problems) throws IOException {
    if (spec.input().prefix() != null) {
      return Set.of();
    }
    Set<InputShard> missing = ConcurrentHashMap.newKeySet();
    InFlight.all(mine, spec.workers().requestsInFlight(), shard -> {
      Location location = stores.locate(shard.url());
      if (location.store().head(location.key()).isEmpty()) {
        missing.add(shard);
      }
    });
    for (InputShard shard : mine) {
      if (missing.contains(shard)) {
        reportMissing(shard, problems);
      }
    }
    return missing;
  }

  private void reportMissing(InputShard shard, Problems problems) throws IOException {
    problems.report(spec.policies().missingShards(), MISSING_SHARD, "input shard " + shard.url() + " is missing",
        () -> new IOException("Cannot read input shard " + shard.url() + ": it does not exist (policy"
            + " missingShards is abort; set it to warn or ignore to sort without it)"));
  }

  private void extractShard(InputShard shard, ShardExtractor extractor, PartitionPacks partitionPacks,
      Partitioner partitioner, ExternalSorter sorter, Progress progress, Problems problems, long[] totals)
      throws IOException {
    Location location = stores.locate(shard.url());
    InputStream in;
    try {
      in = location.store().get(location.key());
    } catch (NoSuchObjectException e) {
      reportMissing(shard, problems);
      synchronized (totals) {
        totals[0]++;
      }
      progress.shardDone(0, 0);
      return;
    }
    // Read again where it is only if no shard of this run can replace it before create reads it (one create worker
    // may write its shards while another still reads its records), and, in one process, only from a local file.
    boolean readableAgain = (location.store().isLocal() || !inOneProcess)
        && !spec.outputLocation().holds(shard.url());
    long inputBytes;
    boolean groupedOnDisk;
    long[] records = new long[2]; // records, record bytes
    try (ShardExtractor.ExtractedShard extracted = extractor.extract(shard, in, readableAgain)) {
      inputBytes = extracted.inputBytes();
      groupedOnDisk = extracted.groupedOnDisk();
      if (partitionPacks != null) {
        // Its turn first, then the sorter: a shard that holds the sorter never waits for another's turn.
        try (PartitionPacks.ShardMove move = partitionPacks.moving(shard.index())) {
          toSorter(extracted, entry -> move.move(entry, partitioner.partitionOf(entry)), sorter, records);
        }
      } else {
        toSorter(extracted, entry -> entry, sorter, records);
      }
    }
    synchronized (totals) {
      totals[1] += inputBytes;
      totals[2] += records[1];
      totals[3] += groupedOnDisk ? 1 : 0;
    }
    progress.shardDone(records[0], inputBytes);
  }

  /** Gives the shard's records, each through {@code moved}, to the sorter; counts them and their bytes. */
  private void toSorter(ShardExtractor.ExtractedShard extracted, IOFunction<RecordEntry, RecordEntry> moved,
      ExternalSorter sorter, long[] records) throws IOException {
    // A lock, not a monitor: an add may spill, which waits for virtual threads of its own; on Java 21 a virtual thread
    // that waits while holding a monitor, or to enter one, keeps its carrier, and with as many carriers as CPUs the
    // spill's threads never ran (a worker of 1 to 4 CPUs hung at its first spill).
    sorterLock.lock();
    try {
      extracted.records(entry -> {
        RecordEntry placed = moved.apply(entry);
        sorter.add(placed);
        records[0]++;
        records[1] += placed.size();
      });
    } finally {
      sorterLock.unlock();
    }
  }
}
