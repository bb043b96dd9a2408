package dev.quarry.core.sort.commit;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.json.Json;
import dev.quarry.core.sort.ScratchMarker;
import dev.quarry.core.sort.spec.BraceTemplate;
import dev.quarry.core.sort.spec.OutputLocation;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.LimitedInputStream;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStores;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a job may do with the objects already in its output location, per output template. The manifest is the
 * commit point: a run is finished when, and only when, its manifest is there.
 *
 * <ul>
 *   <li>A committed output (a manifest) is replaced only with {@code overwrite}.
 *   <li>An unfinished output (a pending record, no manifest) is replaced by the job that wrote it (a rerun after
 *       Ctrl-C or kill -9), or by any job with {@code overwrite}.
 *   <li>Objects matching the template that neither names are not Quarry's to touch: the job is refused.
 * </ul>
 *
 * <p>A claim writes the pending record first (every name it will replace or write), then deletes the manifest and
 * WebDataset index (the earlier run stops looking finished), then the earlier run's shards the new one does not
 * write again; commit writes the index and manifest, then deletes the pending record. So at no moment do a
 * manifest and shards of two runs coexist, and nothing the records do not name is deleted.
 */
public final class OutputClaim {
  /**
   * The most bytes a manifest or pending record read back may have: some 150,000 shards of names, sizes and digests,
   * far beyond a real run; a larger object is refused unread, since parsing it could take the worker's heap.
   */
  static final long MAX_RECORD_BYTES = 32L << 20;
  private static final int NAMES_SHOWN = 5;
  /** How many times a claim writes its pending record if absent, looking again after each that found one. */
  private static final int CLAIM_ATTEMPTS = 10;

  private final ObjectStores stores;
  private final OutputLocation location;
  private final String job;
  private final boolean overwrite;

  public OutputClaim(ObjectStores stores, SortSpec spec) {
    this.stores = stores;
    this.location = spec.outputLocation();
    this.job = ScratchMarker.of(spec).job();
    this.overwrite = spec.isOverwrite();
  }

  /** Refuses the job if it may not write to {@code templates}' names; writes and deletes nothing. */
  public void check(List<BraceTemplate> templates) throws IOException {
    for (BraceTemplate template : templates) {
      inspect(template);
    }
  }

  /**
   * Checks, then takes the names for the run: {@code planned.get(i)} are the URLs of template {@code i}'s new shards.
   */
  public void claim(List<BraceTemplate> templates, List<List<String>> planned) throws IOException {
    List<Prior> priors = new ArrayList<>();
    for (BraceTemplate template : templates) {
      priors.add(inspect(template));
    }
    // In the order of their pending records' names, so that two jobs of several templates in other orders meet at
    // the first they share, and one of them takes none.
    List<Integer> inOrder = new ArrayList<>(InFlight.indexes(templates.size()));
    inOrder.sort(Comparator.comparing(i -> priors.get(i).names.pending()));
    for (int i : inOrder) {
      Prior prior = priors.get(i);
      Set<String> mine = new TreeSet<>();
      for (String url : planned.get(i)) {
        mine.add(url.substring(url.lastIndexOf('/') + 1));
      }
      // Where the look found no pending record, it is written only if still none is there: another job that looked
      // at the same moment may have written its own since, and the look again then refuses (or, for this job's own
      // record, takes it in). Without the condition both wrote, and the shards of the two runs mixed.
      for (int attempt = 1; !writePending(prior, mine); attempt++) {
        if (attempt == CLAIM_ATTEMPTS) {
          throw new IllegalStateException("Cannot sort into " + templates.get(i) + ": " + prior.names.pending()
              + " came and went " + CLAIM_ATTEMPTS + " times while this job claimed the output (other jobs are"
              + " sorting into it); run one job into an output at a time");
        }
        prior = inspect(templates.get(i));
      }
      // Looked at again: a copy of this job's plan that stalled between its look and its write (a zombie pod) would
      // otherwise delete the manifest that another copy's run committed meanwhile, leaving a finished output
      // unfinished. A manifest written since the look means a commit came first: this claim takes nothing.
      if (!Objects.equals(prior.manifestSeen, headOf(prior.names.manifest()))) {
        delete(prior.names.pending()); // written by this claim after the commit's release, or released by it anyway
        throw new IllegalStateException("Cannot sort into " + templates.get(i) + ": " + prior.names.manifest()
            + " was written while this run claimed the output (another run of this job committed it first);"
            + " nothing was deleted");
      }
      delete(prior.names.manifest());
      delete(prior.names.wids());
      for (String name : prior.known) {
        if (!mine.contains(name)) {
          delete(prior.names.folder() + name);
        }
      }
    }
  }

  /**
   * Before commit writes the manifest of {@code template}, whose shards are {@code shardUrls}: a create worker killed
   * while it sent a shard left that shard's upload unfinished (S3 keeps and bills its parts, no listing shows them),
   * and its rerun wrote the shard anew. Every create worker has ended now, so the uploads of exactly these names are
   * given up, whatever their age; others' in the folder stay. Returns how many.
   */
  public int giveUpUnfinishedUploads(BraceTemplate template, List<String> shardUrls) throws IOException {
    Location folder = stores.locate(OutputNames.of(template).folder()); // listed only: the names given up are confined
    Set<String> keys = new TreeSet<>();
    for (String url : shardUrls) {
      keys.add(stores.locate(location.confine(url)).key());
    }
    return folder.store().removeUnfinishedUploadsOf(folder.key(), keys);
  }

  /** After commit wrote the manifest of {@code template}: the run is finished, its pending record goes. */
  public void release(BraceTemplate template) throws IOException {
    delete(OutputNames.of(template).pending());
  }

  /** What is in the way of a new run to {@code template}, and the earlier run's names it may replace. */
  private record Prior(OutputNames names, Set<String> known, boolean pending, Optional<ObjectInfo> manifestSeen) {}

  /**
   * Writes the pending record of the names {@code prior} knows and {@code mine}: over the one the look found, or only
   * where none is (false when one came since).
   */
  private boolean writePending(Prior prior, Set<String> mine) throws IOException {
    Set<String> touched = new TreeSet<>(prior.known);
    touched.addAll(mine);
    byte[] record = Json.bytes(new PendingOutput(PendingOutput.FORMAT, job, List.copyOf(touched)));
    Location target = stores.locate(location.confine(prior.names.pending()));
    if (prior.pending) {
      target.store().put(target.key(), record);
      return true;
    }
    return target.store().putIfAbsent(target.key(), record);
  }

  private Prior inspect(BraceTemplate template) throws IOException {
    OutputNames names = OutputNames.of(template);
    Optional<ObjectInfo> manifestSeen = headOf(names.manifest());
    Optional<Manifest> manifest = read(names.manifest(), Manifest.class);
    Optional<PendingOutput> pending = read(names.pending(), PendingOutput.class);
    if (manifest.isPresent() && !overwrite) {
      throw new IllegalArgumentException("Cannot sort into " + template + ": " + names.manifest() + " commits the"
          + " output of an earlier run (" + manifest.get().shards().size() + " shards); pass --overwrite (overwrite:"
          + " true in a ShardSortJob) to replace it, or choose another output");
    }
    if (pending.isPresent() && !pending.get().job().equals(job) && !overwrite) {
      throw new IllegalArgumentException("Cannot sort into " + template + ": " + names.pending() + " names the"
          + " unfinished output of another job; pass --overwrite (overwrite: true in a ShardSortJob) to replace it,"
          + " or choose another output");
    }
    Pattern shard = shardName(template);
    Set<String> known = new TreeSet<>();
    manifest.ifPresent(m -> m.shards().forEach(s -> known.add(checkedName(template, shard, names.manifest(),
        s.name()))));
    pending.ifPresent(p -> p.shards().forEach(name -> known.add(checkedName(template, shard, names.pending(), name))));
    List<String> strays = strays(template, names, shard, known);
    if (!strays.isEmpty()) {
      throw new IllegalArgumentException("Cannot sort into " + template + ": " + strays.size() + " objects in "
          + names.folder() + " match the template but no manifest or pending record of a Quarry run names them ("
          + String.join(", ", strays.subList(0, Math.min(NAMES_SHOWN, strays.size())))
          + (strays.size() > NAMES_SHOWN ? ", ..." : "") + "); move or delete them, or choose another output");
    }
    return new Prior(names, known, pending.isPresent(), manifestSeen);
  }

  /** A name of one of the template's shards, relative to its folder: the only names a record may make us delete. */
  private static Pattern shardName(BraceTemplate template) {
    String prefix = template.prefix();
    return Pattern.compile(Pattern.quote(prefix.substring(prefix.lastIndexOf('/') + 1)) + "[0-9]+"
        + Pattern.quote(template.suffix()));
  }

  /** The objects named like the template's shards that {@code known} does not name. */
  private List<String> strays(BraceTemplate template, OutputNames names, Pattern shard, Set<String> known)
      throws IOException {
    Location folder = stores.locate(names.folder());
    Location prefix = stores.locate(template.prefix());
    List<String> strays = new ArrayList<>();
    try (Stream<ObjectInfo> listed = prefix.store().listAll(prefix.key())) {
      listed.map(object -> object.key().substring(folder.key().length()))
          .filter(name -> shard.matcher(name).matches() && !known.contains(name))
          .forEach(strays::add);
    }
    return strays;
  }

  /**
   * A name read from a manifest or pending record, which a claim may delete: refused unless it is a shard name of
   * the template (its prefix, digits, its suffix), so that a planted or edited record cannot name any other file.
   */
  private static String checkedName(BraceTemplate template, Pattern shard, String record, String name) {
    if (name == null || !shard.matcher(name).matches()) {
      throw new IllegalArgumentException("Cannot use " + record + ": it names a shard that is not a shard of "
          + template + " (it is corrupt or not Quarry's; move it away, or choose another output)");
    }
    return name;
  }

  private <T> Optional<T> read(String url, Class<T> type) throws IOException {
    Location target = stores.locate(location.confine(url));
    Optional<ObjectInfo> info = target.store().head(target.key());
    if (info.isEmpty()) {
      return Optional.empty();
    }
    String kind = type == Manifest.class ? "manifest" : "pending record";
    String tooLarge = "Cannot use " + url + ": it is larger than " + (MAX_RECORD_BYTES >> 20) + " MiB, more than a"
        + " Quarry " + kind + " has (move it away, or choose another output)";
    if (info.get().size() > MAX_RECORD_BYTES) {
      throw new IllegalArgumentException(tooLarge);
    }
    T value;
    try (InputStream in = new LimitedInputStream(target.store().get(target.key()), MAX_RECORD_BYTES, tooLarge)) {
      value = Json.read(in.readAllBytes(), type);
    } catch (LimitedInputStream.TooLargeException e) {
      throw new IllegalArgumentException(tooLarge, e); // it grew since it was looked at
    } catch (NoSuchObjectException e) {
      return Optional.empty(); // deleted since it was looked at
    } catch (IOException e) {
      value = null; // said below, without quoting the content
    }
    boolean valid = value instanceof Manifest m ? m.version() == Manifest.VERSION && "quarry".equals(m.createdBy())
        && m.shards() != null
        : value instanceof PendingOutput p && PendingOutput.FORMAT.equals(p.format()) && p.job() != null
            && p.shards() != null;
    if (!valid) {
      throw new IllegalArgumentException("Cannot use " + url + ": it is not a Quarry " + kind + " (move it away, or"
          + " choose another output)");
    }
    return Optional.of(value);
  }

  /** What a HEAD of {@code url} finds: its size, tag and time tell one version of it from the next. */
  private Optional<ObjectInfo> headOf(String url) throws IOException {
    Location target = stores.locate(location.confine(url));
    return target.store().head(target.key()).map(info -> new ObjectInfo(url, info.size(), info.etag(),
        info.lastModified()));
  }

  private void delete(String url) throws IOException {
    Location target = stores.locate(location.confine(url));
    target.store().delete(target.key());
  }
}
