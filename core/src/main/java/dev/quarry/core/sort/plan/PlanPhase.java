package dev.quarry.core.sort.plan;

import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.concurrent.Futures;
import dev.quarry.core.policy.Policy;
import dev.quarry.core.policy.Problems;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.StoredJson;
import dev.quarry.core.sort.commit.OutputClaim;
import dev.quarry.core.sort.extract.ExtractResult;
import dev.quarry.core.sort.input.InputShard;
import dev.quarry.core.sort.order.KeyOrder;
import dev.quarry.core.sort.order.RecordOrders;
import dev.quarry.core.sort.records.ExternalSorter;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.records.RunMerger;
import dev.quarry.core.sort.records.RunWriter;
import dev.quarry.core.sort.records.StoreRunStorage;
import dev.quarry.core.sort.spec.BraceTemplate;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.OutputLocation;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.text.Printable;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Phase 2: merges every extract worker's runs in key order, so that copies of a key arrive side by side and the first
 * in input order is kept; maps keys through the key map; sorts into the job's order (an external sort, unless the
 * order is the key order itself); cuts the sequence into output shards; and writes each shard's plan. Memory does
 * not grow with the number of records nor with the number of runs: at most {@link RunMerger#FAN_IN} runs are read at
 * once, the sort's budget, and one shard's entries.
 */
public final class PlanPhase {
  /** The problem kind counted for a record key seen in more than one place. */
  public static final String DUPLICATE_RECORD = "duplicateRecord";
  private static final int PLAN_UPLOADS_IN_FLIGHT = 16;

  private final SortSpec spec;
  private final ObjectStores stores;
  private final ObjectStore scratchStore;
  private final Scratch scratch;
  private final PrintStream log;

  public PlanPhase(SortSpec spec, ObjectStores stores, Location scratchRoot, PrintStream log) {
    this.spec = spec;
    this.stores = stores;
    this.scratchStore = scratchRoot.store();
    this.scratch = new Scratch(scratchRoot.key());
    this.log = log;
  }

  public PlanSummary run(int extractCount, Problems problems) throws IOException, InterruptedException {
    if (scratchStore.head(scratch.planDone()).isPresent()) {
      log.println("plan: already done");
      return StoredJson.read(scratchStore, scratch.planDone(), PlanSummary.class);
    }
    List<InputShard> inputs = readInputs();
    List<String> runs = new ArrayList<>();
    for (int index = 0; index < extractCount; index++) {
      if (scratchStore.head(scratch.extractDone(index)).isEmpty()) {
        throw new IllegalStateException("Cannot plan: extract worker " + index + " of " + extractCount
            + " has not finished (run quarry sort extract --index " + index + " first)");
      }
      ExtractResult done = StoredJson.read(scratchStore, scratch.extractDone(index), ExtractResult.class);
      if (done.count() != extractCount) {
        throw new IllegalStateException("Cannot plan: extract worker " + index + " ran with --count "
            + done.count() + ", not " + extractCount + " (rerun every extract worker with --count " + extractCount
            + ")");
      }
      int expectedFrom = (int) ((long) inputs.size() * index / extractCount);
      int expectedTo = (int) ((long) inputs.size() * (index + 1) / extractCount);
      if (done.from() != expectedFrom || done.to() != expectedTo) {
        throw new IllegalStateException("Cannot plan: extract worker " + index + " of " + extractCount + " read"
            + " input shards " + done.from() + " to " + done.to() + ", not " + expectedFrom + " to " + expectedTo
            + " of the " + inputs.size() + " in the input list (the inputs changed; clean the scratch and sort"
            + " again)");
      }
      runs.addAll(done.runs());
    }
    ShardFormat outputFormat = outputFormat(inputs);
    Keymap keymap = spec.order().kind() == OrderKind.KEYMAP ? loadKeymap(problems) : null;
    List<BraceTemplate> templates = keymap != null
        ? keymap.templates()
        : List.of(BraceTemplate.parse(spec.output().template(), true));

    StoreRunStorage storage = new StoreRunStorage(scratchStore);
    Counts counts = new Counts(templates.size());
    try (Cutting cutting = new Cutting(templates, outputFormat)) {
      if (RecordOrders.isKeyOrder(spec.order()) && keymap == null) {
        if (spec.output().shardCount() != null) {
          forEachDistinct(storage, runs, null, new Problems(), new Counts(1), entry -> counts.add(0));
          counts.dropped = 0;
        }
        forEachDistinct(storage, runs, null, problems, counts, entry -> cutting.add(entry, counts));
      } else {
        ExternalSorter sorter = new ExternalSorter(RecordOrders.of(spec.order()), storage,
            scratch.planSortPrefix(UUID.randomUUID()), spec.workers().memory().entryBytes());
        forEachDistinct(storage, runs, keymap, problems, counts, entry -> {
          counts.add(keymap == null ? 0 : ((Long) entry.contentKey()).intValue());
          sorter.add(RecordOrders.ranked(spec.order(), entry));
        });
        try (RunMerger sorted = sorter.sorted()) {
          for (RecordEntry entry = sorted.next(); entry != null; entry = sorted.next()) {
            cutting.add(entry, counts);
          }
        }
        for (String run : sorter.finish()) {
          storage.delete(run);
        }
      }
      cutting.finish();
      OutputClaim claim = new OutputClaim(stores, spec);
      if (spec.isDryRun()) {
        claim.check(templates); // a dry run fails as the real run would, and changes nothing
      } else {
        // Before the plan is written, so before create can write a shard.
        List<List<String>> planned = new ArrayList<>();
        templates.forEach(template -> planned.add(new ArrayList<>()));
        cutting.shards.forEach(shard -> planned.get(shard.template()).add(shard.url()));
        claim.claim(templates, planned);
      }
      return writeSummary(inputs, outputFormat, templates, cutting, counts, problems);
    }
  }

  private PlanSummary writeSummary(List<InputShard> inputs, ShardFormat outputFormat, List<BraceTemplate> templates,
      Cutting cutting, Counts counts, Problems problems) throws IOException {
    PlanSummary summary = new PlanSummary(inputs, cutting.shards, outputFormat.extension(),
        templates.stream().map(BraceTemplate::toString).toList(), cutting.records, cutting.bytes,
        problems.count(DUPLICATE_RECORD), counts.dropped);
    StoredJson.write(scratchStore, scratch.planDone(), summary);
    log.printf("plan: %d records into %d %s shards%n", summary.records(), summary.shards().size(),
        outputFormat.extension());
    return summary;
  }

  private List<InputShard> readInputs() throws IOException {
    if (scratchStore.head(scratch.inputs()).isEmpty()) {
      throw new IllegalStateException("Cannot plan: no input list in scratch (run quarry sort extract --index 0"
          + " first)");
    }
    return Arrays.asList(StoredJson.read(scratchStore, scratch.inputs(), InputShard[].class));
  }

  private ShardFormat outputFormat(List<InputShard> inputs) {
    if (spec.output().format() != null) {
      return ShardFormat.ofExtension(spec.output().format());
    }
    List<ShardFormat> formats = inputs.stream().map(InputShard::format).distinct().toList();
    if (formats.size() != 1) {
      throw new IllegalArgumentException("Invalid output: no format given and the inputs have " + formats.size()
          + " formats " + formats + " (set output.format)");
    }
    return formats.get(0);
  }

  private Keymap loadKeymap(Problems problems) throws IOException {
    SortSpec.Keymap source = spec.order().keymap();
    String text = source.inline();
    if (text == null) {
      Location location = stores.locate(source.object());
      text = new String(location.store().getBytes(location.key()), StandardCharsets.UTF_8);
    }
    return Keymap.parse(text, source.separator(), spec.outputLocation(), spec.policies().keymapMalformedLine(),
        problems);
  }

  private interface EntryConsumer {
    void accept(RecordEntry entry) throws IOException;
  }

  /**
   * Every record once, in key order: the first copy of a key in input order is kept and the others handled by the
   * duplicates policy; with a key map, each kept entry carries its template index as content key, and records no
   * line matches are handled by the missing-key policy.
   */
  private void forEachDistinct(StoreRunStorage storage, List<String> runs, Keymap keymap, Problems problems,
      Counts counts, EntryConsumer consumer) throws IOException {
    Policy duplicates = spec.policies().duplicatedRecords();
    String passPrefix = scratch.planSortPrefix(UUID.randomUUID());
    AtomicInteger passRuns = new AtomicInteger();
    try (RunMerger merger = RunMerger.open(storage, runs, KeyOrder.ENTRIES,
        () -> String.format("%s%06d.run", passPrefix, passRuns.getAndIncrement()))) {
      RecordEntry previous = null;
      for (RecordEntry entry = merger.next(); entry != null; entry = merger.next()) {
        if (previous != null && previous.key().equals(entry.key())) {
          RecordEntry kept = previous;
          RecordEntry dropped = entry;
          // A key is read from an input shard: shown escaped, so that it cannot forge a line of the warnings.
          problems.report(duplicates, DUPLICATE_RECORD, "record " + Printable.of(dropped.key()) + " of input"
              + " shard " + dropped.shard() + " repeats a key of input shard " + kept.shard() + "; kept the first",
              () -> new IllegalArgumentException("Cannot sort: record key " + Printable.of(dropped.key())
                  + " appears in input shards " + kept.shard() + " and " + dropped.shard() + " (policy"
                  + " duplicatedRecords is abort; set it to warn or ignore to keep the first occurrence)"));
          continue;
        }
        previous = entry;
        if (keymap != null) {
          int template = keymap.match(entry.key());
          if (template < 0) {
            String key = Printable.of(entry.key());
            problems.report(spec.policies().keymapMissingKey(), Keymap.MISSING_KEY, "record " + key
                + " matches no key map line; dropped it", () -> new IllegalArgumentException("Cannot sort: record "
                    + key + " matches no key map line (policy keymapMissingKey is abort; add a line for it, or set"
                    + " the policy to warn or ignore to drop such records)"));
            counts.dropped++;
            continue;
          }
          entry = entry.withContentKey((long) template);
        }
        consumer.accept(entry);
      }
    }
  }

  /** Records per template, for shard counts. */
  private static final class Counts {
    final long[] records;
    long dropped;

    Counts(int templates) {
      records = new long[templates];
    }

    void add(int template) {
      records[template]++;
    }
  }

  /** Cuts ordered entries into shards, template by template, and uploads each shard's plan. */
  private final class Cutting implements AutoCloseable {
    final List<BraceTemplate> templates;
    final OutputLocation location = spec.outputLocation();
    final ShardFormat format;
    final List<PlannedShard> shards = new ArrayList<>();
    final ExecutorService uploads = Executors.newVirtualThreadPerTaskExecutor();
    final Semaphore inFlight = new Semaphore(PLAN_UPLOADS_IN_FLIGHT);
    final List<Future<?>> pending = new ArrayList<>();
    List<RecordEntry> current = new ArrayList<>();
    int template = -1;
    long shardOfTemplate;
    ShardCutter cutter;
    long records;
    long bytes;
    long shardBytes;

    Cutting(List<BraceTemplate> templates, ShardFormat format) {
      this.templates = templates;
      this.format = format;
    }

    void add(RecordEntry entry, Counts counts) throws IOException {
      int entryTemplate = templates.size() == 1 ? 0 : ((Long) entry.contentKey()).intValue();
      if (entryTemplate != template) {
        closeShard();
        template = entryTemplate;
        shardOfTemplate = 0;
        cutter = new ShardCutter(spec.output(), counts.records[template]);
      }
      current.add(entry);
      shardBytes += entry.size();
      records++;
      bytes += entry.size();
      if (cutter.add(entry.size())) {
        closeShard();
      }
    }

    /** Ends the shard being filled, if any, and uploads its plan. */
    void closeShard() throws IOException {
      if (current.isEmpty()) {
        return;
      }
      BraceTemplate names = templates.get(template);
      if (names.size() >= 0 && shardOfTemplate >= names.size()) {
        throw new IllegalArgumentException("Cannot plan: output template " + names + " has " + names.size()
            + " names but the job needs more shards (use an open-ended range such as {000000..}, or larger"
            + " shards)");
      }
      String name = location.confine(names.name(shardOfTemplate++));
      PlannedShard shard = new PlannedShard(shards.size(), name, template, current.size(), shardBytes);
      shards.add(shard);
      List<RecordEntry> entries = current;
      current = new ArrayList<>();
      shardBytes = 0;
      try {
        inFlight.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("Cannot plan: interrupted", e);
      }
      pending.add(uploads.submit(() -> {
        try {
          ByteArrayOutputStream bytes = new ByteArrayOutputStream();
          try (RunWriter writer = new RunWriter(bytes)) {
            for (RecordEntry entry : entries) {
              writer.write(entry);
            }
          }
          scratchStore.put(scratch.shardPlan(shard.index()), bytes.toByteArray());
        } finally {
          inFlight.release();
        }
        return null;
      }));
    }

    void finish() throws IOException, InterruptedException {
      closeShard();
      try {
        for (Future<?> upload : pending) {
          upload.get();
        }
      } catch (ExecutionException e) {
        throw Futures.unwrap(e);
      }
    }

    /** Waits for every upload in flight, on success and failure alike, so nothing writes after the phase ends. */
    @Override
    public void close() {
      uploads.close();
    }
  }
}
