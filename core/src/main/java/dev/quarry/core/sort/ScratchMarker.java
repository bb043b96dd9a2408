package dev.quarry.core.sort;

import dev.quarry.core.json.Json;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.cas.Digest;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The object that makes a prefix a sort's scratch: written before any other, naming the job by the digest of what
 * decides its output (input, output, order, policies). A phase refuses a prefix that holds objects without a marker
 * (someone else's data) or the marker of another job (its plan would be taken for this one's); {@code sort clean}
 * deletes only under a prefix marked for the job it cleans.
 *
 * <p>The format names the scratch's layout. A scratch of an earlier layout (a job begun by an earlier Quarry, its
 * workers replaced by newer ones) is refused by every phase, whose reads would take its objects for the new layout's,
 * and cleaned by {@code sort clean}, which deletes the names either layout writes ({@link Scratch#WRITTEN}).
 *
 * @param format {@value #FORMAT}, or an earlier one ({@link #EARLIER}) read from a scratch
 * @param job the job's digest
 */
public record ScratchMarker(String format, String job) {
  /**
   * Version 4: the plan writes each partition's segments of the packs for its create workers, and every partition
   * step leaves packed entries relative to their segment (version 3's key order steps made them offsets in the pack,
   * which a create worker of version 4 would read as relative).
   * Version 3: an extract worker's runs numbered within each partition and counted by partition in its done marker,
   * which names them (version 2 numbered them across partitions, and its markers name none: its runs were listed).
   * Version 2: the input list in pages, content and none steps' lists of the partitions they hold records of, pieces
   * of shards across partitions, the shared key sample.
   */
  public static final String FORMAT = "quarry-sort-scratch/4";
  /** Earlier layouts, which {@code sort clean} still deletes. */
  static final List<String> EARLIER = List.of("quarry-sort-scratch/1", "quarry-sort-scratch/2",
      "quarry-sort-scratch/3");
  /** The most bytes a marker may have; it is read back from a store, so it is bounded. */
  static final int MAX_BYTES = 4096;

  /** The marker of {@code spec}'s job. */
  public static ScratchMarker of(SortSpec spec) {
    byte[] decisive = Json.bytes(List.of(spec.input(), spec.output(), spec.order(), spec.policies()));
    return new ScratchMarker(FORMAT, Digest.of(decisive).hex());
  }

  /** Marks {@code scratch} for this job, or refuses it when it holds another's data or another job's marker. */
  public void claim(Location scratch) throws IOException {
    ObjectStore store = scratch.store();
    String marker = new Scratch(scratch.key()).marker();
    Optional<ScratchMarker> found = read(scratch);
    if (found.isEmpty()) {
      boolean holdsObjects;
      try (Stream<ObjectInfo> listed = store.listAll(scratch.key())) {
        holdsObjects = listed.findAny().isPresent();
      }
      // A worker of this job may have written the marker, then objects, between the two looks: look again.
      found = holdsObjects ? read(scratch) : Optional.empty();
      if (holdsObjects && found.isEmpty()) {
        throw new IllegalArgumentException("Cannot use scratch " + scratch.url() + ": it holds objects but no "
            + Scratch.MARKER + ", so it is not a sort's scratch (choose an empty folder of its own)");
      }
      if (found.isEmpty()) {
        // Written only if still none is there: another job that looked at the same moment may have marked it since
        // (without the condition both wrote, both went on, and one's extract markers and runs replaced the other's).
        if (store.putIfAbsent(marker, Json.bytes(this))) {
          return;
        }
        found = read(scratch);
        if (found.isEmpty()) {
          throw new IllegalStateException("Cannot use scratch " + scratch.url() + ": its " + Scratch.MARKER
              + " came and went while this job marked it (another job is using it; choose a folder of its own)");
        }
      }
    }
    if (!found.get().job().equals(job)) {
      throw new IllegalArgumentException("Cannot use scratch " + scratch.url() + ": it is the scratch of another"
          + " job (its input, output, order or policies differ; choose another folder)");
    }
    if (!found.get().format().equals(format)) {
      throw new IllegalArgumentException("Cannot use scratch " + scratch.url() + ": an earlier Quarry began this job"
          + " there (" + found.get().format() + ", not " + format + "); run quarry sort clean for it, then sort again");
    }
  }

  /** Whether {@code other} marks the same job, in this layout or an earlier one. */
  boolean sameJob(ScratchMarker other) {
    return job.equals(other.job());
  }

  /** The marker under {@code scratch}, of this layout or an earlier one, if any; refused when it is not one. */
  public static Optional<ScratchMarker> read(Location scratch) throws IOException {
    ObjectStore store = scratch.store();
    String marker = new Scratch(scratch.key()).marker();
    // One request: a ranged GET of a byte past the most a marker holds gives the object and its size.
    ObjectStore.ObjectStart start;
    try {
      start = store.getStart(marker, MAX_BYTES + 1);
    } catch (NoSuchObjectException e) {
      return Optional.empty();
    }
    ScratchMarker read = null;
    if (start.size() <= MAX_BYTES) {
      try {
        read = Json.read(start.bytes(), ScratchMarker.class);
      } catch (IOException e) {
        read = null; // not JSON: said below without quoting it
      }
    }
    if (read == null || !(FORMAT.equals(read.format()) || EARLIER.contains(read.format())) || read.job() == null
        || !read.job().matches("[0-9a-f]{64}")) {
      throw new IllegalArgumentException("Cannot use scratch " + scratch.url() + ": its " + Scratch.MARKER
          + " is not a " + FORMAT + " marker");
    }
    return Optional.of(read);
  }
}
