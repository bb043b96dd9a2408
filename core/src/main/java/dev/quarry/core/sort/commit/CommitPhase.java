package dev.quarry.core.sort.commit;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.json.Json;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.StoredJson;
import dev.quarry.core.sort.create.CreatePhase;
import dev.quarry.core.sort.create.CreatedShard;
import dev.quarry.core.sort.plan.PlanShards;
import dev.quarry.core.sort.plan.PlanSummary;
import dev.quarry.core.sort.plan.PlannedShard;
import dev.quarry.core.sort.spec.BraceTemplate;
import dev.quarry.core.sort.spec.OutputLocation;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.RequestRefusedException;
import dev.quarry.core.units.Counted;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The last step: once every output shard has its done marker, writes per output template a WebDataset wids index
 * and then a manifest, next to the shards: for {@code s3://b/out/train-{000000..}.tar} they are
 * {@code s3://b/out/train.wids.json} and {@code s3://b/out/train.manifest.json}. The manifest is the commit point;
 * then the run's pending record goes ({@link OutputClaim}).
 */
public final class CommitPhase {
  private final ObjectStores stores;
  private final ObjectStore scratchStore;
  private final Scratch scratch;
  private final OutputLocation location;
  private final OutputClaim claim;
  private final PrintStream log;
  private final int requestsInFlight;

  public CommitPhase(SortSpec spec, ObjectStores stores, Location scratchRoot, PrintStream log) {
    this.stores = stores;
    this.location = spec.outputLocation();
    this.claim = new OutputClaim(stores, spec);
    this.requestsInFlight = spec.workers().requestsInFlight();
    this.scratchStore = scratchRoot.store();
    this.scratch = new Scratch(scratchRoot.key());
    this.log = log;
  }

  /** What commit wrote: the manifests, and the totals of the shards they list. */
  public record Committed(List<String> manifests, long shards, long records, long bytes) {}

  /** Writes the indexes and manifests. */
  public Committed run() throws IOException {
    PlanSummary plan = CreatePhase.readPlan(scratchStore, scratch);
    List<PlannedShard> planned = new PlanShards(scratchStore, scratch, plan).all();
    Map<Long, CreatedShard> created = readCreated(planned);
    checkRecordsArePlanned(plan, planned, created);
    List<String> manifests = new ArrayList<>();
    long allRecords = 0;
    long allBytes = 0;
    for (int template = 0; template < plan.templates().size(); template++) {
      List<CreatedShard> shards = new ArrayList<>();
      for (PlannedShard shard : planned) {
        if (shard.template() == template) {
          shards.add(created.get(shard.index()));
        }
      }
      BraceTemplate parsed = BraceTemplate.parse(plan.templates().get(template), true);
      // Before the manifest, so that a failure leaves the run unfinished, and its rerun does this again.
      String givenUp = giveUpUnfinishedUploads(parsed, shards);
      OutputNames names = OutputNames.of(parsed);
      String name = names.base().substring(names.base().lastIndexOf('/') + 1);
      List<WidsIndex.Entry> entries = new ArrayList<>();
      List<Manifest.Shard> lines = new ArrayList<>();
      long records = 0;
      long bytes = 0;
      for (CreatedShard shard : shards) {
        String relative = shard.url().substring(shard.url().lastIndexOf('/') + 1);
        entries.add(new WidsIndex.Entry(relative, shard.records(), shard.size()));
        lines.add(new Manifest.Shard(relative, shard.size(), shard.records(), shard.sha256()));
        records += shard.records();
        bytes += shard.size();
      }
      put(names.wids(), Json.bytes(new WidsIndex(1, name, entries)));
      put(names.manifest(), Json.bytes(new Manifest(Manifest.VERSION, "quarry", plan.outputFormat(), records, bytes,
          lines)));
      claim.release(parsed);
      String manifest = names.manifest();
      manifests.add(manifest);
      allRecords += records;
      allBytes += bytes;
      log.printf("commit: %s, %s in %s%s%n", Counted.of(shards.size(), "shard"), Counted.of(records, "record"),
          manifest, givenUp);
    }
    return new Committed(manifests, planned.size(), allRecords, allBytes);
  }

  /**
   * Gives up what killed create workers left unfinished of the shards' uploads, and says how it went. This only
   * tidies: a store that refuses it (a policy without s3:ListBucketMultipartUploads or s3:AbortMultipartUpload)
   * leaves them to the bucket's lifecycle rule, with a warning, and the commit goes on; any other failure fails the
   * commit, to be run again.
   */
  private String giveUpUnfinishedUploads(BraceTemplate template, List<CreatedShard> shards) throws IOException {
    try {
      int givenUp = claim.giveUpUnfinishedUploads(template, shards.stream().map(CreatedShard::url).toList());
      return givenUp == 0 ? "" : "; gave up " + Counted.of(givenUp, "unfinished upload") + " of its shards (a create"
          + " worker stopped while it sent them)";
    } catch (RequestRefusedException e) {
      return "; warning: left any unfinished uploads of its shards to the bucket's lifecycle rule (" + e.getMessage()
          + ")";
    }
  }

  /**
   * Refuses to write any manifest unless each template's created shards hold the records the plan counts for it, and
   * all of them the plan's total.
   */
  private static void checkRecordsArePlanned(PlanSummary plan, List<PlannedShard> planned,
      Map<Long, CreatedShard> created) {
    long[] records = new long[plan.templates().size()];
    for (PlannedShard shard : planned) {
      records[shard.template()] += created.get(shard.index()).records();
    }
    long all = 0;
    for (int template = 0; template < records.length; template++) {
      if (records[template] != plan.templateRecords().get(template)) {
        throw new IllegalStateException("Cannot commit: the created shards of template "
            + plan.templates().get(template) + " hold " + records[template] + " records, not the "
            + plan.templateRecords().get(template) + " of the plan (the scratch was changed; clean it and sort"
            + " again)");
      }
      all += records[template];
    }
    if (all != plan.records()) {
      throw new IllegalStateException("Cannot commit: the created shards hold " + all + " records, not the "
          + plan.records() + " of the plan (the scratch was changed; clean it and sort again)");
    }
  }

  /**
   * Every shard's done marker, one GET each, {@code requestsInFlight} at once (a job of 100,000 shards read them one
   * after the other, two requests each, for minutes); a shard without one fails the commit, naming the first in plan
   * order.
   */
  private Map<Long, CreatedShard> readCreated(List<PlannedShard> shards) throws IOException {
    Map<Long, CreatedShard> created = new ConcurrentHashMap<>();
    Set<PlannedShard> missing = ConcurrentHashMap.newKeySet();
    InFlight.all(shards, requestsInFlight, shard -> {
      try {
        CreatedShard done = StoredJson.read(scratchStore, scratch.created(shard.index()), CreatedShard.class);
        if (done.index() != shard.index() || !shard.url().equals(done.url())) {
          throw new IllegalStateException("Cannot commit: the done marker of output shard " + shard.url() + " names "
              + done.url() + " (the scratch was changed; clean it and sort again)");
        }
        created.put(shard.index(), done);
      } catch (NoSuchObjectException e) {
        missing.add(shard);
      }
    });
    for (PlannedShard shard : shards) {
      if (missing.contains(shard)) {
        throw new IllegalStateException("Cannot commit: output shard " + shard.url() + " has not been created (run"
            + " every quarry sort create index first)");
      }
    }
    return created;
  }

  private void put(String url, byte[] bytes) throws IOException {
    Location target = stores.locate(location.confine(url));
    target.store().put(target.key(), bytes);
  }
}
