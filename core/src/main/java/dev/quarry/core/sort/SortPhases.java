package dev.quarry.core.sort;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.json.Json;
import dev.quarry.core.policy.Problems;
import dev.quarry.core.sort.commit.CommitPhase;
import dev.quarry.core.sort.commit.OutputClaim;
import dev.quarry.core.sort.create.CreatePhase;
import dev.quarry.core.store.DirectWriteBuffers;
import dev.quarry.core.sort.create.CreatedShard;
import dev.quarry.core.sort.extract.ExtractPhase;
import dev.quarry.core.sort.extract.ExtractResult;
import dev.quarry.core.sort.extract.PackStore;
import dev.quarry.core.sort.plan.PlanPhase;
import dev.quarry.core.sort.plan.PartitionPhase;
import dev.quarry.core.sort.plan.PartitionResult;
import dev.quarry.core.sort.plan.PlanShards;
import dev.quarry.core.sort.plan.PlanSummary;
import dev.quarry.core.sort.plan.PlannedShard;
import dev.quarry.core.sort.plan.SharedSplitters;
import dev.quarry.core.sort.spec.BraceTemplate;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.RequestCounts;
import dev.quarry.core.store.RequestTotals;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The phases of a shard sort, each run as one index and reported as a {@link PhaseResult} (also kept in scratch for
 * the operator): extract (many indexes), partition (one index per partition), plan (one), create (many indexes, one
 * per partition at best), commit (one). Worker pods run one phase index each; a local run calls them one after the
 * other, and the plan runs the partition steps that did not run.
 */
public final class SortPhases {
  private final SortSpec spec;
  private final ObjectStores stores;
  private final Location scratchRoot;
  private final PackStore packs;
  private final boolean inOneProcess;
  private final Duration splittersWait;
  /** A local run's, allocated before its extract fills the direct memory (CreatePhase#localWriteBuffers). */
  private final DirectWriteBuffers writeBuffers;
  private final PrintStream log;
  private final ScratchMarker marker;

  /**
   * {@code inOneProcess}: every phase runs in this process (a local run), whose extract holds the records of inputs
   * other than local plain tars in {@code packs}, and whose create writes shards straight from them.
   */
  public SortPhases(SortSpec spec, ObjectStores stores, Location scratchRoot, PackStore packs, boolean inOneProcess,
      PrintStream log) {
    this(spec, stores, scratchRoot, packs, inOneProcess, SharedSplitters.DEFAULT_WAIT, log);
  }

  /**
   * As above; {@code splittersWait}: how long an extract index other than 0 waits for index 0's splitters before
   * drawing them itself ({@link SharedSplitters}).
   */
  public SortPhases(SortSpec spec, ObjectStores stores, Location scratchRoot, PackStore packs, boolean inOneProcess,
      Duration splittersWait, PrintStream log) {
    this.spec = spec;
    this.splittersWait = splittersWait;
    this.stores = stores;
    this.scratchRoot = scratchRoot;
    this.packs = packs;
    this.inOneProcess = inOneProcess;
    this.writeBuffers = inOneProcess ? CreatePhase.localWriteBuffers() : null;
    this.log = log;
    this.marker = ScratchMarker.of(spec);
  }

  /**
   * Extract index {@code index} of {@code count}, then, if every extract index has finished, the plan: so the last
   * extract worker to finish plans, and a cluster starts no pod for it. Workers that finish together may both plan;
   * the plan is deterministic and they write the same bytes.
   */
  public List<PhaseResult> extractThenPlan(int index, int count) throws IOException, InterruptedException {
    return extractThenPlan(index, count, 1);
  }

  /** As {@link #extractThenPlan(int, int)}, the records split into {@code partitions}. */
  public List<PhaseResult> extractThenPlan(int index, int count, int partitions)
      throws IOException, InterruptedException {
    PhaseResult extract = extract(index, count, partitions);
    return allFinished("extract", count) ? List.of(extract, plan(count)) : List.of(extract);
  }

  /** Partition {@code index} of {@code count}, then the plan if every partition step has finished (as above). */
  public List<PhaseResult> partitionThenPlan(int index, int count, int extractCount)
      throws IOException, InterruptedException {
    PhaseResult partition = partition(index, count, extractCount);
    return allFinished("partition", count) ? List.of(partition, plan(extractCount)) : List.of(partition);
  }

  /** Create index {@code index} of {@code count}, then the commit if every create index has finished (as above). */
  public List<PhaseResult> createThenCommit(int index, int count) throws IOException, InterruptedException {
    PhaseResult create = create(index, count);
    return allFinished("create", count) ? List.of(create, commit()) : List.of(create);
  }

  /**
   * Whether each of the {@code count} indexes of {@code phase} has written its result, which it does last, as one of
   * {@code count}: a listing, then, once every index is there, a read of each. An earlier run of the phase in the same
   * scratch with another count leaves results of the same indexes; taken for this run's, the worker that finished
   * first went on to the next step, which refused the other workers' markers, and failed after doing its work.
   */
  private boolean allFinished(String phase, int count) throws IOException {
    Scratch scratch = new Scratch(scratchRoot.key());
    Set<String> results;
    try (Stream<ObjectInfo> listed = scratchRoot.store().listAll(scratch.resultPrefix(phase))) {
      results = listed.map(ObjectInfo::key).collect(Collectors.toSet());
    }
    if (!IntStream.range(0, count).allMatch(index -> results.contains(scratch.result(phase, index)))) {
      return false;
    }
    PhaseResult[] read = new PhaseResult[count];
    InFlight.all(InFlight.indexes(count), InFlight.SORT_REQUESTS, index -> read[index] = StoredJson.readIfPresent(
        scratchRoot.store(), scratch.result(phase, index), PhaseResult.class).orElse(null));
    return Arrays.stream(read).allMatch(result -> result != null && result.count() == count);
  }

  public PhaseResult extract(int index, int count) throws IOException, InterruptedException {
    return extract(index, count, 1);
  }

  /** Extract index {@code index} of {@code count}, its records' entries split into {@code partitions}. */
  public PhaseResult extract(int index, int count, int partitions) throws IOException, InterruptedException {
    return timed("extract", index, count, (problems, details) -> {
      if (index == 0 && spec.order().kind() != OrderKind.KEYMAP) {
        // Refused before the work rather than at the plan; a key map's templates are known only then.
        new OutputClaim(stores, spec).check(List.of(BraceTemplate.parse(spec.output().template(), true)));
      }
      ExtractResult result = new ExtractPhase(spec, stores, scratchRoot, packs, inOneProcess, splittersWait, log)
          .run(index, count, partitions, problems);
      details.put("inputBytes", result.inputBytes());
      details.put("missingShards", result.missingShards());
      details.put("partitions", result.partitions());
      details.put("runs", result.runs());
      details.put("peakMetadataBytes", result.peakMetadataBytes());
      details.put("metadataBytesPerRecord", result.metadataBytesPerRecord());
      details.put("shardsGroupedOnDisk", result.shardsGroupedOnDisk());
      return new long[] {result.shards(), result.records(), result.bytes()};
    });
  }

  /**
   * The step of partition {@code index} of {@code count}: merges, dedupes and orders the partition's records; its
   * result's records are those it ordered, duplicates included.
   */
  public PhaseResult partition(int index, int count, int extractCount) throws IOException, InterruptedException {
    return timed("partition", index, count, (problems, details) -> {
      PartitionResult result = new PartitionPhase(spec, stores, scratchRoot, log).run(index, count, extractCount,
          problems);
      details.put("duplicatesDropped", result.duplicatesDropped());
      details.put("recordsDropped", result.recordsDropped());
      return new long[] {0, result.recordsOrdered(), result.templates().stream()
          .mapToLong(PartitionResult.TemplateCounts::bytes).sum()};
    });
  }

  public PhaseResult plan(int extractCount) throws IOException, InterruptedException {
    return timed("plan", 0, 1, (problems, details) -> {
      PlanSummary plan = new PlanPhase(spec, stores, scratchRoot, log).run(extractCount, problems);
      details.put("outputFormat", plan.outputFormat());
      details.put("duplicatesDropped", plan.duplicatesDropped());
      details.put("recordsDropped", plan.recordsDropped());
      details.put("partitions", plan.partitions().size());
      details.put("shardNames", new PlanShards(scratchRoot.store(), new Scratch(scratchRoot.key()), plan)
          .between(0, Math.min(20, plan.shardCount())).stream().map(PlannedShard::url).toList());
      return new long[] {plan.shardCount(), plan.records(), plan.bytes()};
    });
  }

  public PhaseResult create(int index, int count) throws IOException, InterruptedException {
    return timed("create", index, count, (problems, details) -> {
      CreatePhase phase = new CreatePhase(spec, stores, scratchRoot, packs, inOneProcess, writeBuffers, log);
      List<CreatedShard> shards = phase.run(index, count);
      details.put("shardEntriesOnDisk", phase.shardsWithEntriesOnDisk());
      return new long[] {shards.size(), shards.stream().mapToLong(CreatedShard::records).sum(),
          shards.stream().mapToLong(CreatedShard::size).sum()};
    });
  }

  public PhaseResult commit() throws IOException, InterruptedException {
    return timed("commit", 0, 1, (problems, details) -> {
      CommitPhase.Committed committed = new CommitPhase(spec, stores, scratchRoot, log).run();
      details.put("manifests", committed.manifests());
      return new long[] {committed.shards(), committed.records(), committed.bytes()};
    });
  }

  /** The most heap this JVM has used since it started, summed over the heap's memory pools. */
  private static long peakHeapBytes() {
    return java.lang.management.ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(pool -> pool.getType() == java.lang.management.MemoryType.HEAP)
        .mapToLong(pool -> pool.getPeakUsage().getUsed())
        .sum();
  }

  private interface Phase {
    /** Runs the phase; returns shards, records and bytes. */
    long[] run(Problems problems, Map<String, Object> details) throws IOException, InterruptedException;
  }

  private PhaseResult timed(String phase, int index, int count, Phase body) throws IOException, InterruptedException {
    RequestCounts before = stores.requests().snapshot();
    Instant start = Instant.now();
    Problems problems = new Problems();
    Map<String, Object> details = new LinkedHashMap<>();
    marker.claim(scratchRoot); // before the phase writes anything to scratch
    long[] totals = body.run(problems, details);
    details.put("peakHeapBytes", peakHeapBytes());
    Instant end = Instant.now();
    double seconds = Math.max((end.toEpochMilli() - start.toEpochMilli()) / 1000.0, 0.001);
    PhaseResult result = new PhaseResult(phase, index, count, start.toString(), end.toString(), seconds, totals[0],
        totals[1], totals[2], (long) (totals[2] / seconds),
        RequestTotals.of(stores.requests().snapshot().minus(before)), problems.counts(), problems.warnings(),
        details);
    scratchRoot.store().put(new Scratch(scratchRoot.key()).result(phase, index), Json.bytes(result));
    return result;
  }
}
