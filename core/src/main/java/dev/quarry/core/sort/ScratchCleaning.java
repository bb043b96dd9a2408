package dev.quarry.core.sort;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.RequestRefusedException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What {@code quarry sort clean} does: under a scratch prefix marked for the job being cleaned, deletes the objects the phases write (names
 * {@link Scratch} gives) and gives up every upload left unfinished under it (a worker killed while it sent a pack or
 * a run: S3 keeps and bills a multipart upload's parts until it is aborted, a folder store keeps its temp file), then
 * the marker; nothing else, and nothing at all under an unmarked prefix. Idempotent: a clean cut short keeps the
 * marker, so the next one carries on; a prefix already empty is clean.
 */
public final class ScratchCleaning {
  private static final int DELETES_IN_FLIGHT = 64;

  private ScratchCleaning() {}

  /**
   * What was deleted, how many objects under the prefix were left because the sort does not write them, how many
   * unfinished uploads were given up, and, when the store refused or failed to list them, why (else null).
   */
  public record Cleaned(long objects, long bytes, long kept, long uploads, String uploadsLeft) {}

  /** Cleans {@code scratch} for the job {@code job} marks; refused when the prefix is another job's scratch. */
  public static Cleaned clean(Location scratch, ScratchMarker job) throws IOException {
    Optional<ScratchMarker> marker = ScratchMarker.read(scratch);
    if (marker.isPresent() && !marker.get().sameJob(job)) { // an earlier layout's scratch is cleaned too
      throw new IllegalArgumentException("Cannot clean " + scratch.url() + ": it is the scratch of another job (its"
          + " input, output, order or policies differ); nothing was deleted");
    }
    if (marker.isEmpty()) {
      try (Stream<ObjectInfo> listed = scratch.store().listAll(scratch.key())) {
        if (listed.findAny().isPresent()) {
          throw new IllegalArgumentException("Cannot clean " + scratch.url() + ": it has no " + Scratch.MARKER
              + ", so it is not a sort's scratch; nothing was deleted");
        }
      }
      return new Cleaned(0, 0, 0, 0, null);
    }
    Scratch names = new Scratch(scratch.key());
    List<ObjectInfo> written = new ArrayList<>();
    long kept = 0;
    try (Stream<ObjectInfo> listed = scratch.store().listAll(scratch.key())) {
      for (ObjectInfo object : (Iterable<ObjectInfo>) listed::iterator) {
        String relative = object.key().substring(names.prefix().length());
        if (Scratch.WRITTEN.matcher(relative).matches()) {
          written.add(object);
        } else if (!object.key().equals(names.marker())) {
          kept++;
        }
      }
    }
    InFlight.all(written, DELETES_IN_FLIGHT, object -> scratch.store().delete(object.key()));
    // Of any age: the job's workers have ended when it is cleaned. Before the marker, so that a clean cut short here
    // is carried on. (MinIO lists uploads only for a whole key, and expires them itself after a day.) Only tidying:
    // a store that refuses it (no s3:ListBucketMultipartUploads) leaves them to the bucket's lifecycle rule.
    int uploads = 0;
    String uploadsLeft = null;
    try {
      uploads = scratch.store().removeAbandonedUploads(names.prefix(), Duration.ZERO);
    } catch (RequestRefusedException e) { // any other failure keeps the marker: the next clean tries again
      uploadsLeft = e.getMessage();
    }
    scratch.store().delete(names.marker());
    return new Cleaned(written.size(), written.stream().mapToLong(ObjectInfo::size).sum(), kept, uploads,
        uploadsLeft);
  }
}
