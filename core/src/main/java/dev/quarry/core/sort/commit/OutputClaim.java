package dev.quarry.core.sort.commit;

import dev.quarry.core.concurrent.InFlight;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
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
import java.util.function.UnaryOperator;
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
   * The most shards one run writes into one template (the plan refuses more): its manifest is read back whenever the
   * output is replaced. 256 TiB in shards of 256 MiB; larger outputs take larger shards or more templates.
   */
  public static final int MAX_SHARDS = 1_000_000;
  /** The most names a manifest or pending record read back may hold: a pending record names two runs' shards. */
  static final int MAX_NAMES = 2 * MAX_SHARDS;
  /**
   * The most bytes a manifest or pending record read back may have: {@value #MAX_SHARDS} shards of names of 255 bytes
   * with their sizes and digests, indented, are about 450 MiB. A larger object is refused unread.
   */
  static final long MAX_RECORD_BYTES = 1L << 30;
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
      keys.add(located(url).key());
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
    Location target = located(prior.names.pending());
    if (prior.pending) {
      target.store().put(target.key(), record);
      return true;
    }
    return target.store().putIfAbsent(target.key(), record);
  }

  private Prior inspect(BraceTemplate template) throws IOException {
    OutputNames names = OutputNames.of(template);
    Pattern shard = shardName(template);
    // The manifest's HEAD is kept: the claim compares it with a second one before it deletes anything.
    Optional<ObjectInfo> manifestSeen = headOf(names.manifest());
    Optional<Named> manifest = readNames(names.manifest(), manifestSeen, true,
        name -> checkedName(template, shard, names.manifest(), name));
    Optional<Named> pending = readNames(names.pending(), headOf(names.pending()), false,
        name -> checkedName(template, shard, names.pending(), name));
    if (manifest.isPresent() && !overwrite) {
      throw new IllegalArgumentException("Cannot sort into " + template + ": " + names.manifest() + " commits the"
          + " output of an earlier run (" + manifest.get().names().size() + " shards); pass --overwrite (overwrite:"
          + " true in a ShardSortJob) to replace it, or choose another output");
    }
    if (pending.isPresent() && !pending.get().job().equals(job) && !overwrite) {
      throw new IllegalArgumentException("Cannot sort into " + template + ": " + names.pending() + " names the"
          + " unfinished output of another job; pass --overwrite (overwrite: true in a ShardSortJob) to replace it,"
          + " or choose another output");
    }
    Set<String> known = new TreeSet<>();
    manifest.ifPresent(m -> known.addAll(m.names()));
    pending.ifPresent(p -> known.addAll(p.names()));
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

  /**
   * The shard names of the manifest or pending record at {@code url}, whose HEAD found {@code info} (and a pending
   * record's job), each checked by {@code check} as it is read: parsed a token at a time, so what is held is the
   * names, never the document, and refused past {@value #MAX_NAMES} names or {@link #MAX_RECORD_BYTES} bytes (checked
   * before the read by its size), since a planted one could otherwise take the worker's heap.
   */
  private Optional<Named> readNames(String url, Optional<ObjectInfo> info, boolean manifest,
      UnaryOperator<String> check) throws IOException {
    if (info.isEmpty()) {
      return Optional.empty();
    }
    String kind = manifest ? "manifest" : "pending record";
    String tooLarge = "Cannot use " + url + ": it is larger than " + (MAX_RECORD_BYTES >> 20) + " MiB, more than a"
        + " Quarry " + kind + " has (move it away, or choose another output)";
    if (info.get().size() > MAX_RECORD_BYTES) {
      throw new IllegalArgumentException(tooLarge);
    }
    Location target = located(url);
    Named named;
    try (InputStream in = new LimitedInputStream(target.store().get(target.key()), MAX_RECORD_BYTES, tooLarge);
        JsonParser parser = Json.parser(in)) {
      named = parse(parser, manifest, url, kind, check);
    } catch (LimitedInputStream.TooLargeException e) {
      throw new IllegalArgumentException(tooLarge, e); // it grew since it was looked at
    } catch (NoSuchObjectException e) {
      return Optional.empty(); // deleted since it was looked at
    } catch (IOException e) {
      named = null; // said below, without quoting the content
    }
    if (named == null) {
      throw new IllegalArgumentException("Cannot use " + url + ": it is not a Quarry " + kind + " (move it away, or"
          + " choose another output)");
    }
    return Optional.of(named);
  }

  /** What {@link #readNames} keeps of a manifest or pending record. */
  private record Named(String job, List<String> names) {}

  /** The document's names, or null when it is not a valid one of its kind. */
  private static Named parse(JsonParser parser, boolean manifest, String url, String kind,
      UnaryOperator<String> check) throws IOException {
    if (parser.nextToken() != JsonToken.START_OBJECT) {
      return null;
    }
    Integer version = null;
    String createdBy = null;
    String format = null;
    String job = null;
    List<String> names = null;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      JsonToken value = parser.nextToken();
      switch (field) {
        case "version" -> version = value == JsonToken.VALUE_NUMBER_INT ? parser.getIntValue() : null;
        case "createdBy" -> createdBy = value == JsonToken.VALUE_STRING ? parser.getText() : null;
        case "format" -> format = value == JsonToken.VALUE_STRING ? parser.getText() : null;
        case "job" -> job = value == JsonToken.VALUE_STRING ? parser.getText() : null;
        case "shards" -> {
          if (value != JsonToken.START_ARRAY) {
            return null;
          }
          names = new ArrayList<>();
          for (JsonToken item = parser.nextToken(); item != JsonToken.END_ARRAY; item = parser.nextToken()) {
            if (names.size() == MAX_NAMES) {
              throw new IllegalArgumentException("Cannot use " + url + ": it names more than " + MAX_NAMES
                  + " shards, more than a Quarry " + kind + " has (move it away, or choose another output)");
            }
            String name = manifest ? nameField(parser) : item == JsonToken.VALUE_STRING ? parser.getText() : null;
            if (name == null) {
              return null;
            }
            names.add(check.apply(name));
          }
        }
        default -> parser.skipChildren();
      }
    }
    boolean valid = names != null && (manifest
        ? version != null && version == Manifest.VERSION && "quarry".equals(createdBy)
        : PendingOutput.FORMAT.equals(format) && job != null);
    return valid ? new Named(job, names) : null;
  }

  /** The {@code name} of the manifest's shard object the parser is at, null if it is not one. */
  private static String nameField(JsonParser parser) throws IOException {
    if (parser.currentToken() != JsonToken.START_OBJECT) {
      return null;
    }
    String name = null;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      JsonToken value = parser.nextToken();
      if (field.equals("name") && value == JsonToken.VALUE_STRING) {
        name = parser.getText();
      } else {
        parser.skipChildren();
      }
    }
    return name;
  }

  /** What a HEAD of {@code url} finds: its size, tag and time tell one version of it from the next. */
  private Optional<ObjectInfo> headOf(String url) throws IOException {
    Location target = located(url);
    return target.store().head(target.key());
  }

  private void delete(String url) throws IOException {
    Location target = located(url);
    target.store().delete(target.key());
  }

  /** Where the output name {@code url} is, once the output's rule has confined it to the output's folder. */
  private Location located(String url) {
    return stores.locate(location.confine(url));
  }
}
