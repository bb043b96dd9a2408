package dev.quarry.core.sync.gc;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.LimitedInputStream;
import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.Amount;
import dev.quarry.core.sync.RunClock;
import dev.quarry.core.sync.SyncResult;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.cas.CasLayout;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.LeaseContents;
import dev.quarry.core.sync.cas.Marker;
import dev.quarry.core.sync.cas.Ref;
import dev.quarry.core.sync.cas.TreeObject;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.core.sync.remote.MissingObjectException;
import dev.quarry.core.sync.remote.RefLog;
import dev.quarry.core.sync.remote.RenewedMarker;
import dev.quarry.core.units.Counted;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code quarry sync gc}: mark everything reachable from the refs, the ref log, unexpired push leases and the
 * manifests kept for their age, then sweep what is neither marked nor younger than the grace period: manifests
 * parent-first in waves ({@link ParentsFirst}), then blobs, so that no manifest ever outlives part of its subtree, even
 * when gc is killed midway. Dry run unless told otherwise. A deleting gc announces itself under {@code gc/running/}
 * before it reads the leases (pushes wait for it), reads the leases before the refs (a push releases its lease only
 * after writing its ref, so one of the two is seen), and rewrites {@code gc/generation} before and after deleting,
 * which invalidates every client's index of complete trees.
 */
public final class GarbageCollector {
  static final Duration MARKER_TTL = Duration.ofMinutes(10);
  private static final int SAMPLES = 10;

  /** The ref log's retention unless told otherwise. */
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(30);

  /**
   * {@code dryRun}: report, delete nothing; {@code retention}: keep every version a ref log entry younger than this
   * names, so that a ref moved by mistake can be pulled back by digest.
   */
  public record Options(boolean dryRun, Duration gracePeriod, Duration retention) {}

  private final SyncSession session;
  private final CasRemote remote;
  private final ObjectStore store;
  private final CasLayout layout;
  private final Options options;
  private final Set<String> markedTrees = ConcurrentHashMap.newKeySet();
  private final Set<String> markedBlobs = ConcurrentHashMap.newKeySet();
  /** Manifests whose closure is marked (those a lease marked are walked all the same: leases are not trusted). */
  private final Set<String> walked = new HashSet<>();

  private GarbageCollector(SyncSession session, Options options) {
    this.session = session;
    this.remote = session.remote();
    this.store = remote.store();
    this.layout = remote.layout();
    this.options = options;
  }

  public static SyncResult run(SyncSession session, Options options) throws IOException {
    return new GarbageCollector(session, options).collect();
  }

  private SyncResult collect() throws IOException {
    RunClock clock = new RunClock(store);
    Instant start = Instant.now();
    String id = start.toString().replace(':', '-') + "-" + UUID.randomUUID();
    RenewedMarker running = options.dryRun() ? null : RenewedMarker.start(store,
        layout.gcRunningPrefix() + id + ".json", MARKER_TTL, new Marker(Marker.GC, id, null, start.toString(), null));
    try {
      // Leases before refs: a push that passed the fence before the marker above holds its lease until its ref is
      // written, so it is either still leased here or its ref is read below (docs/formats.md, "gc and push").
      List<String> staleLeases = markFromLeases(start);
      List<Digest> roots = new ArrayList<>();
      List<String> refs = readRefs(roots);
      markFrom(roots, true);
      List<RefLog.Record> history = remote.refLog().readSince(start.minus(options.retention()));
      markFrom(history.stream().map(record -> record.entry().rootDigest()).toList(), false);
      Instant cutoff = start.minus(options.gracePeriod());
      Sweep trees = Sweep.find(store, layout.space(CasLayout.TREES), markedTrees, cutoff, remote.inFlight());
      // A manifest kept for its age (say, of a push that failed before its ref) keeps what it names: a manifest
      // present proves its subtree present, and a later push trusts it.
      markFrom(trees.kept().stream().map(object -> new Digest(CasLayout.hexOf(object.key()), object.size()))
          .toList(), false);
      trees = trees.without(markedTrees);
      Sweep blobs = Sweep.find(store, layout.space(CasLayout.BLOBS), markedBlobs, cutoff, remote.inFlight());
      Amount unreachable = new Amount(trees.deletable().size() + blobs.deletable().size(),
          trees.deletableBytes() + blobs.deletableBytes());
      Amount retained = new Amount(trees.young() + blobs.young(), trees.youngBytes() + blobs.youngBytes());
      session.log("gc: %s, %s younger than %s, %s and %s reachable; %s (%s) unreachable and older than %s; %d"
              + " unreachable but younger", Counted.of(refs.size(), "ref"),
          Counted.of(history.size(), "ref log entry", "ref log entries"),
          options.retention().toString().substring(2).toLowerCase(), Counted.of(markedTrees.size(), "manifest"),
          Counted.of(markedBlobs.size(), "blob"), Counted.of(unreachable.objects(), "object"),
          Counted.of(unreachable.bytes(), "byte"), options.gracePeriod().toString().substring(2).toLowerCase(),
          retained.objects());
      Amount deleted = Amount.NONE;
      if (running != null) {
        deleted = delete(running, trees, blobs, staleLeases);
        removeAbandonedUploads();
      }
      return new SyncResult("gc", remote.url(), null, null, 0, 0, 0, null, null, deleted, unreachable, retained,
          clock.requests(), null, null, 0, List.of(), options.dryRun() ? List.of("dry run: nothing was deleted")
              : List.of(), clock.startTime(), clock.now(), clock.elapsedSeconds());
    } finally {
      if (running != null) {
        running.close();
      }
    }
  }

  /**
   * Removes the uploads a killed writer left under the store's prefix (S3 multipart uploads, which no listing shows
   * and no other command reaches), as old as the grace period and a day at least: a live upload of one large blob
   * may take hours.
   */
  private void removeAbandonedUploads() throws IOException {
    Duration age = options.gracePeriod().compareTo(FileStore.ABANDONED_AFTER) > 0 ? options.gracePeriod()
        : FileStore.ABANDONED_AFTER;
    int removed = store.removeAbandonedUploads(layout.prefix(), age);
    if (removed > 0) {
      session.log("gc: removed %d uploads started over %s ago that no writer finished", removed,
          age.toString().substring(2).toLowerCase());
    }
  }

  /** The names of the refs; adds their roots to {@code roots}. */
  private List<String> readRefs(List<Digest> roots) throws IOException {
    List<String> names = new ArrayList<>();
    for (ObjectInfo object : (Iterable<ObjectInfo>) store.listAll(layout.refsPrefix())::iterator) {
      String name = object.key().substring(layout.refsPrefix().length());
      Optional<Ref> ref = remote.readRef(name);
      if (ref.isEmpty()) {
        continue; // Deleted since the listing.
      }
      names.add(name);
      roots.add(ref.get().rootDigest());
    }
    return names;
  }

  /**
   * Marks the closure of every root. {@code strict} (the roots of refs): a missing manifest means a broken ref, and
   * then nothing may be deleted. Otherwise (ref log entries) what is missing is skipped: an earlier gc with a shorter
   * retention may have deleted that version, and what is left of it is kept.
   */
  private void markFrom(List<Digest> roots, boolean strict) throws IOException {
    List<Digest> level = roots.stream().filter(root -> walked.add(root.hex())).toList();
    while (!level.isEmpty()) {
      Map<Digest, TreeObject> objects = strict ? fetchAll(level) : fetchPresent(level);
      List<Digest> next = new ArrayList<>();
      for (TreeObject object : objects.values()) {
        for (Digest tree : object.trees()) {
          if (walked.add(tree.hex())) {
            next.add(tree);
          }
        }
        object.blobs().forEach(blob -> markedBlobs.add(blob.hex()));
      }
      level = next;
    }
    markedTrees.addAll(walked);
  }

  private Map<Digest, TreeObject> fetchAll(List<Digest> digests) throws IOException {
    try {
      return remote.fetchObjects(digests);
    } catch (MissingObjectException e) {
      throw new IOException("Cannot collect garbage: " + e.getMessage() + "; nothing was deleted", e);
    }
  }

  private Map<Digest, TreeObject> fetchPresent(List<Digest> digests) throws IOException {
    Map<Digest, TreeObject> fetched = new ConcurrentHashMap<>();
    try {
      Map<Digest, Exception> failed = InFlight.forEach(digests, remote.inFlight(),
          digest -> fetched.put(digest, remote.fetchObject(digest)));
      for (Exception e : failed.values()) {
        if (!(e instanceof MissingObjectException)) {
          throw new IOException("Cannot collect garbage: " + e.getMessage() + "; nothing was deleted", e);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while reading the ref log's versions");
    }
    return fetched;
  }

  /** Marks every digest of unexpired leases; returns the keys of expired ones, deleted with the garbage. */
  private List<String> markFromLeases(Instant now) throws IOException {
    List<String> stale = new ArrayList<>();
    Instant cutoff = now.minus(options.gracePeriod());
    for (ObjectInfo object : (Iterable<ObjectInfo>) store.listAll(layout.leasesPrefix())::iterator) {
      String key = object.key();
      if (!key.endsWith(".json")) {
        if (object.lastModified().isBefore(cutoff) && !store.head(
            key.substring(0, key.length() - ".trees.gz".length()) + ".json").isPresent()) {
          stale.add(key);
        }
        continue;
      }
      Marker lease;
      try {
        lease = Marker.parse(store.url(key), remote.readSmall(key));
      } catch (NoSuchObjectException released) {
        continue;
      }
      if (lease.isExpired(now)) {
        stale.add(key);
        stale.add(layout.leaseTreesKey(lease.id()));
        continue;
      }
      String contents = layout.leaseTreesKey(lease.id());
      try (InputStream in = remote.openBounded(contents, LeaseContents.MAX_BYTES, "Cannot read "
          + store.url(contents) + ": it is larger than a lease's digest list may be (2 GiB)")) {
        LeaseContents.decode(store.url(contents), in, markedTrees, markedBlobs);
      } catch (NoSuchObjectException released) {
        // The push ended between the listing and this read; its ref, if any, was marked or is newer than the sweep.
      }
    }
    return stale;
  }

  /**
   * Deletes the markers of gcs that were killed: expired, so no push waits for them, but nothing else removes them.
   * Only what parses as a gc marker: an object Quarry did not write stays.
   */
  private void deleteExpiredMarkers(RenewedMarker running) throws IOException {
    Instant now = Instant.now();
    for (ObjectInfo object : store.listAll(layout.gcRunningPrefix()).toList()) {
      if (object.key().equals(running.key())) {
        continue;
      }
      Marker marker;
      try {
        marker = Marker.parse(store.url(object.key()), remote.readSmall(object.key()));
      } catch (NoSuchObjectException ended) {
        continue;
      } catch (Marker.InvalidMarkerException | LimitedInputStream.TooLargeException notAMarker) {
        continue; // Not Quarry's: it stays.
      }
      if (Marker.GC.equals(marker.format()) && marker.isExpired(now)) {
        store.delete(object.key());
      }
    }
  }

  /** A new gc generation: every client's index of complete trees is void. */
  private void writeGeneration() throws IOException {
    byte[] generation = HexFormat.of().formatHex(Digest.sha256().digest(UUID.randomUUID().toString()
        .getBytes(StandardCharsets.UTF_8))).substring(0, 32).getBytes(StandardCharsets.UTF_8);
    store.put(layout.gcGenerationKey(), generation);
  }

  private Amount delete(RenewedMarker running, Sweep trees, Sweep blobs, List<String> staleLeases)
      throws IOException {
    AtomicLong objects = new AtomicLong();
    AtomicLong bytes = new AtomicLong();
    Map<ObjectInfo, Exception> failed = new ConcurrentHashMap<>();
    // Manifests parent-first in waves, then blobs: a gc killed at any point leaves every present manifest whole. The
    // generation changes before the first delete too, so a client's index never outlives a gc killed midway.
    List<List<ObjectInfo>> waves = new ArrayList<>(ParentsFirst.waves(remote, trees.deletable()));
    waves.add(blobs.deletable());
    if (!trees.deletable().isEmpty() || !blobs.deletable().isEmpty()) {
      running.requireValid("delete garbage");
      writeGeneration();
    }
    for (List<ObjectInfo> wave : waves) {
      running.requireValid("delete garbage");
      try {
        failed.putAll(InFlight.forEach(wave, remote.inFlight(), object -> {
          store.delete(object.key());
          objects.incrementAndGet();
          bytes.addAndGet(object.size());
        }));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("Interrupted while deleting garbage");
      }
      if (!failed.isEmpty()) {
        break;
      }
    }
    if (objects.get() > 0) {
      writeGeneration();
    }
    for (String key : staleLeases) {
      store.delete(key);
    }
    deleteExpiredMarkers(running);
    if (!failed.isEmpty()) {
      var first = failed.entrySet().iterator().next();
      throw new IOException("Cannot collect garbage: " + failed.size() + " deletes failed (first: "
          + store.url(first.getKey().key()) + ": " + first.getValue().getMessage() + "); " + objects.get()
          + " objects were deleted, and running gc again finishes the rest");
    }
    session.log("gc: deleted %d objects (%d bytes)", objects.get(), bytes.get());
    return new Amount(objects.get(), bytes.get());
  }
}
