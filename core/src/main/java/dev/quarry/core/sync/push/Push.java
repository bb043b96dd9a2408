package dev.quarry.core.sync.push;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectUpload;
import dev.quarry.core.sync.Amount;
import dev.quarry.core.sync.RemoteComparison;
import dev.quarry.core.sync.RunClock;
import dev.quarry.core.sync.SyncResult;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.TransferProgress;
import dev.quarry.core.sync.cas.CasLayout;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.LeaseContents;
import dev.quarry.core.sync.cas.Marker;
import dev.quarry.core.sync.cas.Ref;
import dev.quarry.core.sync.cas.RefLogEntry;
import dev.quarry.core.sync.cas.TreeObject;
import dev.quarry.core.sync.local.LocalTree;
import dev.quarry.core.sync.remote.MissingObjects;
import dev.quarry.core.sync.remote.RenewedMarker;
import dev.quarry.core.units.Counted;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code quarry sync push}: blobs, then manifests children first, then the ref, so that a manifest on the remote always
 * proves its subtree present. Holds a lease listing every digest of the version while it works, after waiting out
 * any gc already deleting. A failed or killed push leaves only complete subtrees behind, and the next push starts
 * where it stopped: what was uploaded is found present.
 */
public final class Push {
  static final Duration LEASE_TTL = Duration.ofMinutes(10);
  private static final int SMALL_BLOB = 8 << 20;
  private static final int ATTEMPTS = 3;
  private static final int SAMPLES = 10;

  /**
   * {@code allowEmpty}: push a folder that holds no files (otherwise refused, as a mistyped path usually is);
   * {@code by}: who pushes, for the ref log (see {@link #defaultAuthor()}).
   */
  public record Options(boolean allowEmpty, String by) {
    /** Refuse an empty folder; the author is {@code user@host}. */
    public static Options defaults() {
      return new Options(false, defaultAuthor());
    }
  }

  private final SyncSession session;
  private final Options options;
  private final ObjectStore store;
  private final CasLayout layout;
  private final Map<Digest, Exception> failures = new ConcurrentHashMap<>();

  private Push(SyncSession session, Options options) {
    this.session = session;
    this.options = options;
    this.store = session.remote().store();
    this.layout = session.remote().layout();
  }

  public static SyncResult run(SyncSession session, String refName, Options options) throws IOException {
    return new Push(session, options).push(refName);
  }

  /** {@code user@host}, as the ref log names a push nobody named. */
  public static String defaultAuthor() {
    String host = System.getenv("HOSTNAME");
    if (host == null || host.isBlank()) {
      try {
        host = java.net.InetAddress.getLocalHost().getHostName();
      } catch (IOException e) {
        host = "unknown-host";
      }
    }
    return RefLogEntry.printable(System.getProperty("user.name", "unknown") + "@" + host);
  }

  private SyncResult push(String refName) throws IOException {
    CasLayout.requireRefName(refName);
    RefLogEntry.requireAuthor(options.by());
    RunClock clock = new RunClock(store);
    LocalTree tree = session.scan("push");
    if (tree.files() == 0 && !options.allowEmpty()) {
      throw new IOException("Cannot push " + session.folder() + ": it holds no files, and the ref would name an empty"
          + " version (pass --allow-empty if that is what you mean)");
    }
    String id = Instant.now().toString().replace(':', '-') + "-" + UUID.randomUUID();
    store.put(layout.leaseTreesKey(id), LeaseContents.encode(tree.manifests().values()));
    Amount missingRemote;
    Amount moved;
    MissingObjects missing;
    boolean refWritten;
    try (RenewedMarker lease = RenewedMarker.start(store, layout.leaseKey(id), LEASE_TTL,
        new Marker(Marker.LEASE, id, tree.root().text(), Instant.now().toString(), null))) {
      GcFence.awaitNoRunningGc(session);
      RemoteComparison comparison = RemoteComparison.of(session, tree, refName, true);
      missingRemote = comparison.missingRemote();
      missing = comparison.missing();
      session.log("push: the remote lacks %s and %s (%s); looked up by %s",
          Counted.of(missing.missingBlobs().size(), "blob"), Counted.of(missing.missingTrees().size(), "manifest"),
          Counted.of(missingRemote.bytes(), "byte"), missing.mainStrategy().name());
      TransferProgress progress = new TransferProgress(session, "push", missingRemote.objects(),
          missingRemote.bytes());
      uploadBlobs(tree, missing, progress);
      lease.requireValid("push manifests");
      boolean rootComplete = uploadManifests(missing.missingTrees(), tree.root(), progress);
      progress.print(true);
      moved = progress.moved();
      refWritten = rootComplete && failures.isEmpty();
      if (refWritten) {
        lease.requireValid("write ref " + refName);
        session.remote().writeRef(refName, Ref.of(tree.root(), tree.files(), tree.bytes(), Instant.now().toString()),
            comparison.ref().map(Ref::rootDigest).orElse(null), options.by(),
            "sync push " + session.folder() + " --ref " + refName);
        session.index().addComplete(Set.of(tree.root()));
        session.state().markSynced(session.folder()); // what was pushed is no local edit to a later pull
      }
    } finally {
      store.delete(layout.leaseTreesKey(id));
    }
    if (!failures.isEmpty()) {
      throw new PushFailedException(failures.size(), samples(), moved);
    }
    session.log("push: ref %s -> %s (%s, %s)", refName, tree.root().text(), Counted.of(tree.files(), "file"),
        Counted.of(tree.bytes(), "byte"));
    return new SyncResult("push", session.remote().url(), refName, tree.root().text(), tree.files(), tree.bytes(),
        tree.hashedFiles(), null, missingRemote, moved, null, null, clock.requests(), missing.mainStrategy(),
        missing.lookups(), 0, List.of(),
        tree.warnings(), clock.startTime(), clock.now(), clock.elapsedSeconds());
  }

  private void uploadBlobs(LocalTree tree, MissingObjects missing, TransferProgress progress) throws IOException {
    Set<Digest> blobs = missing.missingBlobs();
    Map<Digest, Path> sources = tree.fileSources(missing.missingTrees().stream().map(TreeObject::digest)
        .collect(java.util.stream.Collectors.toSet()));
    try {
      failures.putAll(InFlight.forEach(blobs, session.remote().inFlight(), digest -> {
        uploadBlob(digest, sources.get(digest));
        progress.done(digest.size());
      }));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while pushing blobs");
    }
  }

  private void uploadBlob(Digest digest, Path source) throws Exception {
    String key = layout.blobKey(digest);
    for (int attempt = 1; ; attempt++) {
      try {
        if (digest.size() <= SMALL_BLOB) {
          byte[] data = Files.readAllBytes(source);
          requireUnchanged(source, digest, Digest.of(data));
          store.put(key, data);
        } else {
          uploadLarge(key, digest, source);
        }
        return;
      } catch (SourceChangedException e) {
        throw e;
      } catch (IOException e) {
        if (attempt == ATTEMPTS) {
          throw e;
        }
        Thread.sleep(200L << attempt);
      }
    }
  }

  private void uploadLarge(String key, Digest digest, Path source) throws IOException {
    MessageDigest sha256 = Digest.sha256();
    try (ObjectUpload upload = store.upload(key); InputStream in = Files.newInputStream(source)) {
      OutputStream out = upload.stream();
      byte[] buffer = new byte[1 << 20];
      long length = 0;
      for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
        sha256.update(buffer, 0, read);
        out.write(buffer, 0, read);
        length += read;
      }
      requireUnchanged(source, digest, Digest.of(sha256, length));
      upload.commit();
    }
  }

  private static void requireUnchanged(Path source, Digest expected, Digest actual) throws SourceChangedException {
    if (!expected.equals(actual)) {
      throw new SourceChangedException("Cannot push " + source + ": it changed after it was scanned (was "
          + expected + ", now " + actual + "); push again once nothing writes to the folder");
    }
  }

  /**
   * Uploads manifests, chunks and chunk indexes in order of height, skipping any whose subtree lacks something;
   * whether the root is there.
   */
  private boolean uploadManifests(List<TreeObject> missing, Digest root, TransferProgress progress)
      throws IOException {
    Map<Digest, TreeObject> byDigest = new HashMap<>();
    missing.forEach(object -> byDigest.put(object.digest(), object));
    Map<Digest, Integer> heights = new HashMap<>();
    TreeMap<Integer, List<TreeObject>> byHeight = new TreeMap<>();
    for (TreeObject object : missing) {
      byHeight.computeIfAbsent(height(object, byDigest, heights), h -> new ArrayList<>()).add(object);
    }
    Set<Digest> incomplete = ConcurrentHashMap.newKeySet();
    incomplete.addAll(failures.keySet());
    for (List<TreeObject> level : byHeight.values()) {
      List<TreeObject> ready = new ArrayList<>();
      for (TreeObject object : level) {
        boolean blocked = object.trees().stream().anyMatch(incomplete::contains)
            || object.blobs().stream().anyMatch(incomplete::contains);
        if (blocked) {
          incomplete.add(object.digest());
        } else {
          ready.add(object);
        }
      }
      try {
        Map<TreeObject, Exception> failed = InFlight.forEach(ready, session.remote().inFlight(), object -> {
          session.remote().putObject(object);
          progress.done(object.encodedLength());
        });
        failed.forEach((object, e) -> {
          incomplete.add(object.digest());
          failures.put(object.digest(), e);
        });
        session.index().addComplete(ready.stream().filter(object -> !failed.containsKey(object))
            .map(TreeObject::digest).toList());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("Interrupted while pushing manifests");
      }
    }
    return !incomplete.contains(root);
  }

  private static int height(TreeObject object, Map<Digest, TreeObject> missing, Map<Digest, Integer> heights) {
    Integer known = heights.get(object.digest());
    if (known != null) {
      return known;
    }
    int height = 0;
    for (Digest named : object.trees()) {
      TreeObject child = missing.get(named);
      if (child != null) {
        height = Math.max(height, 1 + height(child, missing, heights));
      }
    }
    heights.put(object.digest(), height);
    return height;
  }

  private List<String> samples() {
    return failures.entrySet().stream().limit(SAMPLES)
        .map(entry -> entry.getKey() + ": " + entry.getValue().getMessage()).toList();
  }

  /** The file under a blob changed between the scan and the upload: retrying cannot help. */
  private static final class SourceChangedException extends IOException {
    SourceChangedException(String message) {
      super(message);
    }
  }
}
