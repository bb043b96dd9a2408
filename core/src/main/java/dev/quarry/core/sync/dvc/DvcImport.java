package dev.quarry.core.sync.dvc;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.store.HashedContent;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.RequestTotals;
import dev.quarry.core.sync.RunClock;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.cas.CasLayout;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.LeaseContents;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.Marker;
import dev.quarry.core.sync.cas.Ref;
import dev.quarry.core.sync.cas.RefLogEntry;
import dev.quarry.core.sync.push.GcFence;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.core.sync.remote.RenewedMarker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code quarry sync import-dvc}: a folder (or file) that DVC 3 pushed to its remote becomes a Quarry version, without
 * the data passing through a local copy of the dataset. Each distinct md5 is streamed once from the DVC remote into a
 * temporary file, read and verified as {@link DvcRemote} reads every content; a blob the Quarry remote already holds
 * is reused, others are uploaded. Then, as a push does, the version is committed under a lease (after waiting out
 * any gc deleting): the blobs it reused are checked present again, manifests go up children first, and the ref is
 * written last, with a ref log entry. At most {@code inFlight} files are held on local disk at once.
 */
public final class DvcImport {
  private static final Duration LEASE_TTL = Duration.ofMinutes(10);
  private static final Set<PosixFilePermission> PRIVATE_FILE = PosixFilePermissions.fromString("rw-------");

  /**
   * What was imported. {@code copied}: blobs uploaded (and their bytes); {@code reused}: blobs the Quarry remote held
   * already; requests on each remote.
   */
  public record Result(String ref, String version, String source, long files, long bytes, long copiedBlobs,
      long copiedBytes, long reusedBlobs, RequestTotals dvcRequests, RequestTotals quarryRequests,
      double elapsedSeconds) {}

  private final ObjectStore dvc;
  private final DvcRemote remote;
  private final SyncSession session;
  private final CasRemote cas;
  private final Path temp;
  private final DvcFile source;
  private final Map<String, Digest> digests = new ConcurrentHashMap<>();
  private final Set<Digest> reused = ConcurrentHashMap.newKeySet();
  private final AtomicLong copiedBlobs = new AtomicLong();
  private final AtomicLong copiedBytes = new AtomicLong();

  private DvcImport(ObjectStore dvc, String dvcPrefix, SyncSession session, DvcFile source) {
    this.dvc = dvc;
    this.remote = new DvcRemote(dvc, dvcPrefix, source, "import");
    this.session = session;
    this.cas = session.remote();
    this.temp = session.folder();
    this.source = source;
  }

  /**
   * Imports {@code source} from the DVC remote at {@code dvcPrefix} of {@code dvc} into the session's remote as
   * {@code ref}. The session's folder is where the temporary files go (an empty private folder, not a dataset).
   */
  public static Result run(ObjectStore dvc, String dvcPrefix, SyncSession session, DvcFile source, String ref,
      String by) throws IOException {
    CasLayout.requireRefName(ref);
    RefLogEntry.requireAuthor(by);
    return new DvcImport(dvc, dvcPrefix, session, source).importAs(ref, by);
  }

  private Result importAs(String ref, String by) throws IOException {
    RunClock dvcClock = new RunClock(dvc);
    RunClock clock = new RunClock(cas.store());
    List<DirListing.Entry> entries = remote.files();
    Set<String> md5s = new LinkedHashSet<>();
    entries.forEach(entry -> md5s.add(entry.md5()));
    session.log("import-dvc: %s lists %d files, %d distinct contents", source.hash(), entries.size(), md5s.size());
    InFlight.all(md5s, cas.inFlight(), this::transfer);
    long bytes = entries.stream().mapToLong(entry -> digests.get(entry.md5()).size()).sum();
    if (source.size() >= 0 && bytes != source.size()) {
      throw new IllegalArgumentException("Cannot import " + source.hash() + ": its .dvc file declares "
          + source.size() + " bytes, but the files it lists hold " + bytes);
    }
    DvcTree tree = DvcTree.of(entries, digests);
    Manifest root = tree.root();
    commit(ref, by, root, tree.levels());
    session.log("import-dvc: ref %s -> %s (%d files, %d bytes; %d blobs copied, %d reused)", ref,
        root.digest().text(), root.files(), root.bytes(), copiedBlobs.get(), reused.size());
    return new Result(ref, root.digest().text(), source.hash().toString(), root.files(), root.bytes(),
        copiedBlobs.get(), copiedBytes.get(), reused.size(), dvcClock.requests(), clock.requests(),
        clock.elapsedSeconds());
  }

  /**
   * One content from the DVC remote to the Quarry remote: read into a temporary file, verified by MD5
   * ({@link DvcRemote#download}), then uploaded unless the Quarry remote has it already.
   */
  private void transfer(String md5) throws IOException {
    Path file = temp.resolve(UUID.randomUUID() + ".part");
    try {
      Digest digest = remote.download(md5, file, PRIVATE_FILE);
      digests.put(md5, digest);
      if (digest.isEmpty()) {
        return; // the empty blob is never stored
      }
      String blobKey = cas.layout().blobKey(digest);
      if (cas.store().head(blobKey).isPresent()) {
        reused.add(digest);
        return;
      }
      cas.store().put(blobKey, new HashedContent(digest.size(), HexFormat.of().parseHex(digest.hex()),
          () -> Files.newInputStream(file)));
      copiedBlobs.incrementAndGet();
      copiedBytes.addAndGet(digest.size());
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /**
   * Push's commit protocol: a lease naming every manifest, then no gc deleting, then the reused blobs present again
   * (a gc that started before the lease may have deleted them), then the manifests deepest first, then the ref.
   */
  private void commit(String ref, String by, Manifest root, List<List<Manifest>> levels) throws IOException {
    List<Manifest> all = levels.stream().flatMap(List::stream).toList();
    String id = Instant.now().toString().replace(':', '-') + "-" + UUID.randomUUID();
    ObjectStore store = cas.store();
    store.put(cas.layout().leaseTreesKey(id), LeaseContents.encode(all));
    try (RenewedMarker lease = RenewedMarker.start(store, cas.layout().leaseKey(id), LEASE_TTL,
        new Marker(Marker.LEASE, id, root.digest().text(), Instant.now().toString(), null))) {
      GcFence.awaitNoRunningGc(session);
      Set<Digest> gone = ConcurrentHashMap.newKeySet();
      InFlight.all(reused, cas.inFlight(), digest -> {
        if (store.head(cas.layout().blobKey(digest)).isEmpty()) {
          gone.add(digest);
        }
      });
      if (!gone.isEmpty()) {
        throw new IOException("Cannot import " + source.hash() + ": " + gone.size() + " blobs it found on the Quarry"
            + " remote were deleted by a gc meanwhile; import again");
      }
      for (int depth = levels.size() - 1; depth >= 0; depth--) {
        Map<Digest, Manifest> unique = new HashMap<>();
        levels.get(depth).forEach(manifest -> unique.put(manifest.digest(), manifest));
        InFlight.all(unique.values(), cas.inFlight(), cas::putManifest);
      }
      lease.requireValid("write ref " + ref);
      Digest previous = cas.readRef(ref).map(Ref::rootDigest).orElse(null);
      cas.writeRef(ref, Ref.of(root.digest(), root.files(), root.bytes(), Instant.now().toString()), previous, by,
          "sync import-dvc " + source.hash() + " --ref " + ref);
    } finally {
      store.delete(cas.layout().leaseTreesKey(id));
    }
  }
}
