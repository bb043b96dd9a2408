package dev.quarry.core.sort.plan;

import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.policy.Problems;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.StoredJson;
import dev.quarry.core.sort.commit.OutputClaim;
import dev.quarry.core.sort.input.StoredInputs;
import dev.quarry.core.sort.order.RecordOrders;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.records.RunMerger;
import dev.quarry.core.sort.records.StoreRunStorage;
import dev.quarry.core.sort.spec.BraceTemplate;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.OutputLocation;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Phase 2, after the partition steps (it runs those not done yet itself, one after the other): turns the partitions'
 * counts into every partition's place in each template's order (prefix sums), the output shards and their names,
 * and which partition holds each shard's first record. It reads no record entry: its work grows with the number of
 * partitions and of shards, not of records.
 */
public final class PlanPhase {
  private final SortSpec spec;
  private final ObjectStores stores;
  private final Location scratchRoot;
  private final ObjectStore scratchStore;
  private final Scratch scratch;
  private final PrintStream log;

  public PlanPhase(SortSpec spec, ObjectStores stores, Location scratchRoot, PrintStream log) {
    this.spec = spec;
    this.stores = stores;
    this.scratchRoot = scratchRoot;
    this.scratchStore = scratchRoot.store();
    this.scratch = new Scratch(scratchRoot.key());
    this.log = log;
  }

  public PlanSummary run(int extractCount, Problems problems) throws IOException, InterruptedException {
    Optional<PlanSummary> earlier = StoredJson.readIfPresent(scratchStore, scratch.planDone(), PlanSummary.class);
    if (earlier.isPresent()) {
      log.println("plan: already done");
      return earlier.get();
    }
    StoredInputs inputs = StoredInputs.read(scratchStore, scratch, "plan", spec.input());
    ExtractedRuns extracted = ExtractedRuns.read(scratchStore, scratch, inputs.size(), extractCount, "plan");
    long[][] packTables = extracted.checkPacks("plan");
    extracted.checkRuns("plan");
    // Read again for its templates and their format alone: the partition steps report its malformed lines.
    Keymap keymap = spec.order().kind() == OrderKind.KEYMAP ? extracted.keymap(spec, stores, new Problems(), "plan")
        : null;
    List<BraceTemplate> templates = keymap != null ? keymap.templates()
        : List.of(BraceTemplate.parse(spec.output().template(), true));
    ShardFormat outputFormat = outputFormat(inputs, keymap);
    int partitionCount = extracted.partitions();
    PartitionPhase partitioning = new PartitionPhase(spec, stores, scratchRoot, log);
    // The steps' markers read at once; a step that did not run runs here, in order.
    PartitionResult[] done = new PartitionResult[partitionCount];
    InFlight.all(InFlight.indexes(partitionCount), InFlight.SORT_REQUESTS,
        index -> done[index] = partitioning.done(index, partitionCount, extractCount, extracted));
    List<PartitionResult> partitions = new ArrayList<>();
    for (int index = 0; index < partitionCount; index++) {
      partitions.add(done[index] != null ? done[index]
          : partitioning.run(index, partitionCount, extractCount, problems));
    }
    long ordered = 0;
    for (PartitionResult partition : partitions) {
      partition.checkSpans(spec.output().shardSizeBytes());
      ordered = Math.addExact(ordered, partition.recordsOrdered());
    }
    if (ordered != extracted.records()) {
      throw new IllegalStateException("Cannot plan: the partition steps ordered " + ordered + " records, not the "
          + extracted.records() + " the extract workers found (the scratch was changed; clean it and sort again)");
    }
    for (PartitionResult partition : partitions) {
      if (!scratch.isPartitionOrdered(partition.index(), partition.ordered())) {
        throw new IllegalStateException("Cannot plan: the done marker of partition " + partition.index() + " names"
            + " an ordered list that is not one of its own (the scratch was changed; clean it and sort again)");
      }
      if (!Objects.equals(partition.packs(), extracted.packNames())
          || !Objects.equals(partition.keymapSha256(), extracted.keymapSha256())) {
        throw new IllegalStateException("Cannot plan: partition " + partition.index() + " was ordered from other"
            + " extract packs or by another key map than the extract workers' done markers name (an extract worker"
            + " ran again meanwhile; clean the scratch and sort again)");
      }
    }
    for (PartitionResult partition : partitions) {
      if (partition.templates().size() != templates.size()) {
        throw new IllegalStateException("Cannot plan: partition " + partition.index() + " counted "
            + partition.templates().size() + " output templates, not " + templates.size() + " (the spec changed;"
            + " clean the scratch and sort again)");
      }
    }
    boolean byKeyHash = Partitioner.stepsByKeyHash(spec.order()) && extracted.spread();
    Cuts cuts = new Cuts(templates, byKeyHash ? byPartition(partitions) : partitions.stream()
        .map(PartitionResult::templates).toList(), partitions.stream().map(PartitionResult::ordered).toList());
    int[] shardsPerTemplate = new int[templates.size()];
    cuts.shards.forEach(shard -> shardsPerTemplate[shard.template()]++);
    for (int i = 0; i < templates.size(); i++) {
      if (shardsPerTemplate[i] > OutputClaim.MAX_SHARDS) {
        throw new IllegalArgumentException("Cannot plan: " + shardsPerTemplate[i] + " shards into " + templates.get(i)
            + ", more than the " + OutputClaim.MAX_SHARDS + " one run may write into an output template (its"
            + " manifest is read back when the output is replaced); make the shards larger");
      }
    }
    OutputClaim claim = new OutputClaim(stores, spec);
    if (spec.isDryRun()) {
      claim.check(templates); // a dry run fails as the real run would, and changes nothing
    } else {
      // Before the plan is written, so before create can write a shard.
      List<List<String>> planned = new ArrayList<>();
      templates.forEach(template -> planned.add(new ArrayList<>()));
      cuts.shards.forEach(shard -> planned.get(shard.template()).add(shard.url()));
      claim.claim(templates, planned);
    }
    List<PlanSummary.ShardRange> ranges = PlanShards.ranges(cuts.shards);
    PlanSummary summary = new PlanSummary(outputFormat.extension(),
        templates.stream().map(BraceTemplate::toString).toList(), cuts.records, cuts.bytes,
        partitions.stream().mapToLong(PartitionResult::duplicatesDropped).sum(),
        partitions.stream().mapToLong(PartitionResult::recordsDropped).sum(),
        extracted.spread(), Arrays.stream(cuts.templateRecords).boxed().toList(),
        cuts.starts, extracted.packs(), byKeyHash, cuts.shards.size(), ranges);
    PlanShards.write(scratchStore, scratch, cuts.shards, ranges, PlanShards.PAGE_SIZE);
    PackSegments.write(scratchStore, scratch, packTables, partitionCount);
    StoredJson.write(scratchStore, scratch.planDone(), summary);
    log.printf("plan: %d records into %d %s shards%n", summary.records(), summary.shardCount(),
        outputFormat.extension());
    return summary;
  }

  /**
   * Each partition's counts from those of the steps of key-hash ranges (content and none): the sums over the steps,
   * the last span being that of the partition's last record in the job's order. That is the last of the steps' last
   * entries of the partition: their small runs of last entries merged by (partition, job's order), so that the plan
   * holds a window of each run, never every step's last entry of every partition.
   */
  private List<List<PartitionResult.TemplateCounts>> byPartition(List<PartitionResult> steps) throws IOException {
    int count = steps.size();
    PartitionResult.TemplateCounts[] sums = new PartitionResult.TemplateCounts[count];
    Arrays.fill(sums, PartitionResult.TemplateCounts.NONE);
    int[] holding = new int[count]; // steps that wrote a list of each partition
    List<String> lasts = new ArrayList<>(count);
    for (PartitionResult step : steps) {
      if (step.outputs() == null) {
        throw new IllegalStateException("Cannot plan: partition step " + step.index() + " did not count its records"
            + " by partition (the scratch was changed; clean it and sort again)");
      }
      for (PartitionResult.OutputCounts output : step.outputs()) {
        sums[output.partition()] = sums[output.partition()].and(output.counts());
        holding[output.partition()]++;
      }
      lasts.add(scratch.partitionLastOf(step.ordered()));
    }
    long shardSize = spec.output().shardSizeBytes();
    long[] lastSpans = new long[count];
    int[] lastsRead = new int[count];
    StoreRunStorage storage = new StoreRunStorage(scratchStore);
    String passPrefix = scratch.partitionSortPrefix(0, UUID.randomUUID());
    AtomicInteger passRuns = new AtomicInteger();
    try (RunMerger merged = RunMerger.open(storage, lasts, Comparator.comparingInt(RecordEntry::segment)
        .thenComparing(RecordOrders.of(spec.order())),
        () -> String.format("%s%06d.run", passPrefix, passRuns.getAndIncrement()))) {
      for (RecordEntry last = merged.next(); last != null; last = merged.next()) {
        int partition = PackedEntries.segmentOf(last, count);
        lastSpans[partition] = ShardCuts.span(last.size(), shardSize); // the partition's last so far
        lastsRead[partition]++;
      }
    }
    List<List<PartitionResult.TemplateCounts>> partitions = new ArrayList<>(count);
    for (int partition = 0; partition < count; partition++) {
      PartitionResult.TemplateCounts sum = sums[partition];
      if (lastsRead[partition] != holding[partition] || lastSpans[partition] > sum.span()) {
        throw new IllegalStateException("Cannot plan: the partition steps' last entries of partition " + partition
            + " are not one per list they wrote of it (the scratch was changed; clean it and sort again)");
      }
      partitions.add(List.of(sum.records() == 0 ? sum
          : new PartitionResult.TemplateCounts(sum.records(), sum.bytes(), sum.span(), lastSpans[partition])));
    }
    return partitions;
  }

  /**
   * The job's one output format: the one declared, else the one the shards' names end in (the key map's templates',
   * which its lines agree on, or the output template's), as dSort's output extension decides its format, else the
   * inputs' when they have one.
   */
  private ShardFormat outputFormat(StoredInputs inputs, Keymap keymap) {
    ShardFormat format = spec.output().shardFormat();
    if (format == null) {
      format = keymap != null ? keymap.format() : ShardFormat.named(spec.output().template()).orElse(null);
    }
    List<ShardFormat> formats = inputs.formats();
    if (format == null && formats.size() != 1) {
      throw new IllegalArgumentException("Invalid output: no format given and the inputs have " + formats.size()
          + " formats " + formats + " (set output.format)");
    }
    return format != null ? format : formats.getFirst();
  }

  /**
   * The prefix sums of the partitions' counts, and the shards they give: template by template, each partition owns
   * the shards that start at one of its records (a shard may go on into the next partitions).
   */
  private final class Cuts {
    final List<PlannedShard> shards = new ArrayList<>();
    final List<PlanSummary.PartitionStart> starts = new ArrayList<>();
    final long[] templateRecords;
    long records;
    long bytes;

    /** {@code partitions}: each partition's counts by template; {@code ordered}: the list each step wrote. */
    Cuts(List<BraceTemplate> templates, List<List<PartitionResult.TemplateCounts>> partitions, List<String> ordered) {
      int count = templates.size();
      templateRecords = new long[count];
      long[] spans = new long[count];
      long[] lastStarts = new long[count];
      for (int index = 0; index < partitions.size(); index++) {
        List<PartitionResult.TemplateCounts> partition = partitions.get(index);
        starts.add(new PlanSummary.PartitionStart(Arrays.stream(templateRecords).boxed().toList(),
            Arrays.stream(spans).boxed().toList(), ordered.get(index)));
        for (int template = 0; template < count; template++) {
          PartitionResult.TemplateCounts counts = partition.get(template);
          if (counts.records() > 0) {
            lastStarts[template] = spans[template] + counts.span() - counts.lastSpan();
          }
          templateRecords[template] = Math.addExact(templateRecords[template], counts.records());
          spans[template] = Math.addExact(spans[template], counts.span());
          records = Math.addExact(records, counts.records());
          bytes = Math.addExact(bytes, counts.bytes());
        }
      }
      OutputLocation location = spec.outputLocation();
      for (int template = 0; template < count; template++) {
        ShardCuts cuts = ShardCuts.of(spec.output(), templateRecords[template]);
        long shardCount = cuts.shards(lastStarts[template]);
        BraceTemplate names = templates.get(template);
        if (names.size() >= 0 && shardCount > names.size()) {
          throw new IllegalArgumentException("Cannot plan: output template " + names + " has " + names.size()
              + " names but the job needs more shards (use an open-ended range such as {000000..}, or larger"
              + " shards)");
        }
        long next = 0; // the template's first shard no partition owns yet
        for (int index = 0; index < partitions.size() && next < shardCount; index++) {
          PartitionResult.TemplateCounts counts = partitions.get(index).get(template);
          if (counts.records() == 0) {
            continue;
          }
          long firstRecord = starts.get(index).records().get(template);
          long firstStart = starts.get(index).starts().get(template);
          long first = cuts.shardOf(firstRecord, firstStart);
          long last = cuts.shardOf(firstRecord + counts.records() - 1,
              firstStart + counts.span() - counts.lastSpan());
          if (first > next || last >= shardCount) {
            throw new IllegalStateException("Cannot plan: the counts of partition " + index + " do not follow"
                + " those before it (the scratch was changed; clean it and sort again)");
          }
          for (long shard = next; shard <= last; shard++) {
            shards.add(new PlannedShard(shards.size(), location.confine(names.name(shard)), template, index));
          }
          next = Math.max(next, last + 1);
        }
        if (next != shardCount) {
          throw new IllegalStateException("Cannot plan: the partitions' counts give " + next + " shards of template "
              + names + ", not " + shardCount + " (the scratch was changed; clean it and sort again)");
        }
      }
    }
  }
}
