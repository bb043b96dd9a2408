package dev.quarry.core.sort.plan;

import dev.quarry.core.policy.Policy;
import dev.quarry.core.policy.Problems;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.StoredJson;
import dev.quarry.core.sort.input.StoredInputs;
import dev.quarry.core.sort.order.RecordOrders;
import dev.quarry.core.sort.records.ExternalSorter;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.records.RunMerger;
import dev.quarry.core.sort.records.RunStorage;
import dev.quarry.core.sort.records.RunWriter;
import dev.quarry.core.sort.records.StoreRunStorage;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.fs.WorkFolder;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.text.Printable;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The step of one partition: merges every extract worker's runs of the partition in key order, so that copies of a
 * key arrive side by side and the first in input order is kept; maps keys through the key map; sorts into the job's
 * order (an external sort, unless the order is the key order itself); writes the partition's ordered entries as one
 * run, then its counts per template. Content and none orders, whose partitions do not bring a key's copies together,
 * have steps of key-hash ranges instead ({@link #runByKeyHash}). Memory does not grow with the number of records nor with the number of runs:
 * at most {@link RunMerger#FAN_IN} runs are read at once, and the sort's budget.
 */
public final class PartitionPhase {
  /** The problem kind counted for a record key seen in more than one place. */
  public static final String DUPLICATE_RECORD = "duplicateRecord";

  private final SortSpec spec;
  private final ObjectStores stores;
  private final ObjectStore scratchStore;
  private final Scratch scratch;
  private final PrintStream log;

  public PartitionPhase(SortSpec spec, ObjectStores stores, Location scratchRoot, PrintStream log) {
    this.spec = spec;
    this.stores = stores;
    this.scratchStore = scratchRoot.store();
    this.scratch = new Scratch(scratchRoot.key());
    this.log = log;
  }

  /**
   * Whether partition {@code index} of {@code count} is done for these extract workers, their packs and their key
   * map (an extract worker that ran again wrote another pack, which the earlier ordered list does not point into, and
   * may have read an edited key map); its counts if so.
   */
  PartitionResult done(int index, int count, int extractCount, ExtractedRuns extracted) throws IOException {
    PartitionResult done = StoredJson.readIfPresent(scratchStore, scratch.partitionDone(index),
        PartitionResult.class).orElse(null);
    if (done == null) {
      return null;
    }
    return done.count() == count && done.extractCount() == extractCount && done.index() == index
        && Objects.equals(done.packs(), extracted.packNames())
        && Objects.equals(done.keymapSha256(), extracted.keymapSha256()) ? done : null;
  }

  public PartitionResult run(int index, int count, int extractCount, Problems problems)
      throws IOException, InterruptedException {
    ExtractedRuns extracted = ExtractedRuns.read(scratchStore, scratch,
        StoredInputs.read(scratchStore, scratch, "partition", spec.input()).size(), extractCount, "partition");
    PartitionResult done = done(index, count, extractCount, extracted);
    if (done != null) {
      log.printf("partition %d/%d: already done%n", index, count);
      return done;
    }
    if (extracted.partitions() != count) {
      throw new IllegalArgumentException("Cannot partition: the extract workers split their records into "
          + extracted.partitions() + " partitions, not " + count + " (run quarry sort partition with --count "
          + extracted.partitions() + ", or extract again with --partitions " + count + ")");
    }
    if (index < 0 || index >= count) {
      throw new IllegalArgumentException("Invalid --index: " + index + " (must be from 0 to " + (count - 1) + ")");
    }
    try (WorkFolder work = WorkFolder.create(Path.of(System.getProperty("java.io.tmpdir")), "quarry-partition-")) {
      RunStorage ownRuns = StoreRunStorage.ownRuns(scratchStore, work.path());
      return writeDone(Partitioner.stepsByKeyHash(spec.order()) && extracted.spread()
          ? runByKeyHash(index, count, extractCount, extracted, ownRuns, problems)
          : runByKey(index, count, extractCount, extracted, ownRuns, problems));
    }
  }

  /**
   * The step of partition {@code index} of a key order (or of a content or none order whose records do not spread):
   * its records once each, in the job's order, as its ordered list.
   */
  private PartitionResult runByKey(int index, int count, int extractCount, ExtractedRuns extracted,
      RunStorage ownRuns, Problems problems) throws IOException {
    Keymap keymap = spec.order().kind() == OrderKind.KEYMAP
        ? extracted.keymap(spec, stores, problems, "partition") : null;
    int templates = keymap == null ? 1 : keymap.templates().size();
    long shardSize = spec.output().shardSizeBytes();
    PartitionResult.TemplateCounts[] counts = new PartitionResult.TemplateCounts[templates];
    Arrays.fill(counts, PartitionResult.TemplateCounts.NONE);
    long[] dropped = new long[3]; // records read, duplicates, records of no key map line
    StoreRunStorage storage = new StoreRunStorage(scratchStore);
    String orderedName = scratch.partitionOrdered(index, UUID.randomUUID());
    try (RunWriter ordered = new RunWriter(storage.create(orderedName))) {
      EntryConsumer write = entry -> {
        int template = keymap == null ? 0 : ((Long) entry.contentKey()).intValue();
        counts[template] = counts[template].plus(entry.size(), shardSize);
        ordered.write(entry);
      };
      if (RecordOrders.isKeyOrder(spec.order()) && keymap == null) {
        forEachDistinct(index, extracted, storage, ownRuns, null, problems, dropped, write);
      } else {
        ExternalSorter sorter = new ExternalSorter(RecordOrders.of(spec.order()), ownRuns,
            scratch.partitionSortPrefix(index, UUID.randomUUID()), spec.workers().memory().entryBytes());
        forEachDistinct(index, extracted, storage, ownRuns, keymap, problems, dropped,
            entry -> sorter.add(RecordOrders.ranked(spec.order(), entry)));
        try (RunMerger sorted = sorter.sorted()) {
          for (RecordEntry entry = sorted.next(); entry != null; entry = sorted.next()) {
            write.accept(entry);
          }
        }
        for (String run : sorter.finish()) {
          ownRuns.delete(run);
        }
      }
      ordered.finish();
    }
    return new PartitionResult(index, count, extractCount, extracted.packNames(), extracted.keymapSha256(),
        orderedName, dropped[0], dropped[1], dropped[2], List.of(counts), null);
  }

  private PartitionResult writeDone(PartitionResult result) throws IOException {
    StoredJson.write(scratchStore, scratch.partitionDone(result.index()), result);
    log.printf("partition %d/%d: ordered %d records%n", result.index(), result.count(), result.recordsOrdered());
    return result;
  }

  /**
   * The step of key-hash range {@code index} of a content or none order whose records spread: merges the range's
   * runs of every extract worker in key order (every copy of its keys is there), drops copies by the duplicates
   * policy as any step does, and writes the kept records of each partition ({@link RecordEntry#segment} says which)
   * as one list in the job's order: one external sort by (partition, job's order), cut at each partition's end. Only
   * the partitions it holds records of get a list, named under the partition ({@code Scratch#partitionListOf}), and
   * its done marker counts those alone; the last entry of each goes to one small run ({@code
   * Scratch#partitionLastOf}) the plan merges. Entries stay as extract wrote them, from their segment's start, as in
   * every step: the create worker of the partition locates them ({@link PackedEntries}).
   */
  private PartitionResult runByKeyHash(int index, int count, int extractCount, ExtractedRuns extracted,
      RunStorage ownRuns, Problems problems) throws IOException {
    long shardSize = spec.output().shardSizeBytes();
    long[] dropped = new long[3]; // records read, duplicates, (no key map) 0
    StoreRunStorage storage = new StoreRunStorage(scratchStore);
    String orderedName = scratch.partitionOrdered(index, UUID.randomUUID());
    ExternalSorter sorter = new ExternalSorter(Comparator.comparingInt(RecordEntry::segment)
        .thenComparing(RecordOrders.of(spec.order())), ownRuns,
        scratch.partitionSortPrefix(index, UUID.randomUUID()), spec.workers().memory().entryBytes());
    forEachDistinct(index, extracted, storage, ownRuns, null, problems, dropped, entry -> {
      PackedEntries.segmentOf(entry, count);
      sorter.add(entry);
    });
    PartitionResult.TemplateCounts kept = PartitionResult.TemplateCounts.NONE;
    List<PartitionResult.OutputCounts> outputs = new ArrayList<>();
    try (RunMerger sorted = sorter.sorted();
        RunWriter lasts = new RunWriter(storage.create(scratch.partitionLastOf(orderedName)))) {
      RecordEntry entry = sorted.next();
      while (entry != null) {
        int partition = entry.segment();
        PartitionResult.TemplateCounts counts = PartitionResult.TemplateCounts.NONE;
        RecordEntry last = null;
        try (RunWriter ordered = new RunWriter(storage.create(scratch.partitionListOf(partition, index,
            orderedName)))) {
          for (; entry != null && entry.segment() == partition; entry = sorted.next()) {
            counts = counts.plus(entry.size(), shardSize);
            ordered.write(entry);
            last = entry;
          }
          ordered.finish();
        }
        lasts.write(last);
        kept = kept.and(counts);
        outputs.add(new PartitionResult.OutputCounts(partition, counts));
      }
      lasts.finish();
    }
    for (String run : sorter.finish()) {
      ownRuns.delete(run);
    }
    return new PartitionResult(index, count, extractCount, extracted.packNames(), extracted.keymapSha256(),
        orderedName, dropped[0], dropped[1], dropped[2], List.of(kept), outputs);
  }

  private interface EntryConsumer {
    void accept(RecordEntry entry) throws IOException;
  }

  /**
   * Every record once, in key order: the first copy of a key in input order is kept and the others handled by the
   * duplicates policy; packed entries stay as extract wrote them, from their segment's start (a step reads no pack:
   * the partition's create worker locates them, {@link PackedEntries}); with a key map, each kept entry carries its
   * template index as content key, and records no line matches are handled by the missing-key policy. Counts records
   * read, duplicates and unmatched records in {@code dropped}.
   */
  private void forEachDistinct(int index, ExtractedRuns extracted, StoreRunStorage storage, RunStorage ownRuns,
      Keymap keymap, Problems problems, long[] dropped, EntryConsumer consumer) throws IOException {
    Policy duplicates = spec.policies().duplicatedRecords();
    String passPrefix = scratch.partitionSortPrefix(index, UUID.randomUUID());
    AtomicInteger passRuns = new AtomicInteger();
    try (RunMerger merger = extracted.merged(index, storage, ownRuns,
        () -> String.format("%s%06d.run", passPrefix, passRuns.getAndIncrement()))) {
      RecordEntry previous = null;
      for (RecordEntry entry = merger.next(); entry != null; entry = merger.next()) {
        dropped[0]++;
        if (previous != null && previous.key().equals(entry.key())) {
          RecordEntry kept = previous;
          RecordEntry duplicate = entry;
          // A key is read from an input shard: shown escaped, so that it cannot forge a line of the warnings.
          problems.report(duplicates, DUPLICATE_RECORD, "record " + Printable.of(duplicate.key()) + " of input"
              + " shard " + duplicate.shard() + " repeats a key of input shard " + kept.shard() + "; kept the first",
              () -> new IllegalArgumentException("Cannot sort: record key " + Printable.of(duplicate.key())
                  + " appears in input shards " + kept.shard() + " and " + duplicate.shard() + " (policy"
                  + " duplicatedRecords is abort; set it to warn or ignore to keep the first occurrence)"));
          dropped[1]++;
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
            dropped[2]++;
            continue;
          }
          entry = entry.withContentKey((long) template);
        }
        consumer.accept(entry);
      }
    }
  }
}
