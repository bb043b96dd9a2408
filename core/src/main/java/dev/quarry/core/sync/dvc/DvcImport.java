package dev.quarry.core.sync.dvc;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.json.Json;
import dev.quarry.core.store.HashedContent;
import dev.quarry.core.store.LimitedInputStream;
import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectInfo;
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
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.push.GcFence;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.core.sync.remote.MissingObjectException;
import dev.quarry.core.sync.remote.RenewedMarker;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code quarry sync import-dvc}: a folder (or file) that DVC 3 pushed to its remote becomes a Quarry version, without
 * the data passing through a local copy of the dataset. Each distinct md5 is streamed once from the DVC remote into a
 * temporary file, bounded (each file and all of them together) by the size the .dvc file declares, hashed with MD5 and SHA-256 on the way, and refused
 * unless its MD5 is the one DVC named it by; a blob the Quarry remote already holds is reused, others are uploaded.
 * Then, as a push does, the version is committed under a lease (after waiting out any gc deleting): the blobs it
 * reused are checked present again, manifests go up children first, and the ref is written last, with a ref log
 * entry. At most {@code inFlight} files are held on local disk at once.
 */
public final class DvcImport {
  /** A listing entry costs about this much memory through the import. */
  private static final long BYTES_PER_FILE = 1024;
  /** The most bytes one listing entry may take in a .dir object: an md5, a relpath of up to 4 KiB, the JSON. */
  private static final long BYTES_PER_LISTED_FILE = 4200;
  private static final Duration LEASE_TTL = Duration.ofMinutes(10);
  private static final int FILE_MODE = 0644;
  private static final int FOLDER_MODE = 0755;

  /**
   * What was imported. {@code copied}: blobs uploaded (and their bytes); {@code reused}: blobs the Quarry remote held
   * already; requests on each remote.
   */
  public record Result(String ref, String version, String source, long files, long bytes, long copiedBlobs,
      long copiedBytes, long reusedBlobs, RequestTotals dvcRequests, RequestTotals quarryRequests,
      double elapsedSeconds) {}

  private final ObjectStore dvc;
  private final String dvcPrefix;
  private final SyncSession session;
  private final CasRemote cas;
  private final Path temp;
  private final DvcFile source;
  private final Map<String, Digest> digests = new ConcurrentHashMap<>();
  private final Set<Digest> reused = ConcurrentHashMap.newKeySet();
  private final AtomicLong copiedBlobs = new AtomicLong();
  private final AtomicLong copiedBytes = new AtomicLong();
  /** Bytes read from the DVC remote so far, by every transfer: never more than the .dvc file declares in all. */
  private final AtomicLong bytesRead = new AtomicLong();

  private DvcImport(ObjectStore dvc, String dvcPrefix, SyncSession session, DvcFile source) {
    this.dvc = dvc;
    this.dvcPrefix = dvcPrefix;
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
    List<DirListing.Entry> entries = source.hash().isDir() ? readListing().entries()
        : List.of(new DirListing.Entry(fileName(), source.hash().md5()));
    Set<String> md5s = new LinkedHashSet<>();
    entries.forEach(entry -> md5s.add(entry.md5()));
    session.log("import-dvc: %s lists %d files, %d distinct contents", source.hash(), entries.size(), md5s.size());
    InFlight.all(md5s, cas.inFlight(), this::transfer);
    long bytes = entries.stream().mapToLong(entry -> digests.get(entry.md5()).size()).sum();
    if (source.size() >= 0 && bytes != source.size()) {
      throw new IllegalArgumentException("Cannot import " + source.hash() + ": its .dvc file declares "
          + source.size() + " bytes, but the files it lists hold " + bytes);
    }
    List<List<Manifest>> levels = new ArrayList<>();
    Manifest root = build(tree(entries), 0, levels);
    commit(ref, by, root, levels);
    session.log("import-dvc: ref %s -> %s (%d files, %d bytes; %d blobs copied, %d reused)", ref,
        root.digest().text(), root.files(), root.bytes(), copiedBlobs.get(), reused.size());
    return new Result(ref, root.digest().text(), source.hash().toString(), root.files(), root.bytes(),
        copiedBlobs.get(), copiedBytes.get(), reused.size(), dvcClock.requests(), clock.requests(),
        clock.elapsedSeconds());
  }

  /** The .dir listing, read bounded and checked against its md5 before it is parsed. */
  private DirListing readListing() throws IOException {
    long maxFiles = Runtime.getRuntime().maxMemory() / BYTES_PER_FILE;
    if (source.files() >= 0) {
      maxFiles = Math.min(maxFiles, source.files());
    }
    long limit = Math.min(Manifest.MAX_BYTES, 2 + (maxFiles + 1) * BYTES_PER_LISTED_FILE);
    String key = source.hash().key(dvcPrefix);
    byte[] data;
    try (InputStream in = new LimitedInputStream(dvc.get(key), limit, "Invalid .dir listing " + source.hash()
        + ": " + dvc.url(key) + " is larger than " + limit + " bytes (more than " + maxFiles
        + " files may take: at most what its .dvc file declares, and what this JVM can hold)")) {
      data = in.readAllBytes();
    } catch (NoSuchObjectException e) {
      throw missing(key);
    }
    String md5 = HexFormat.of().formatHex(md5().digest(data));
    if (!md5.equals(source.hash().md5())) {
      throw new IOException("Cannot import " + source.hash() + ": " + dvc.url(key) + " is corrupt: its bytes hash"
          + " to md5 " + md5);
    }
    DirListing listing = DirListing.parse(source.hash(), data, maxFiles);
    if (source.files() >= 0 && listing.entries().size() != source.files()) {
      throw new IllegalArgumentException("Cannot import " + source.hash() + ": its .dvc file declares "
          + source.files() + " files, but its listing holds " + listing.entries().size());
    }
    return listing;
  }

  /**
   * One content from the DVC remote to the Quarry remote: streamed into a temporary file with both hashes, verified
   * by MD5, then uploaded unless the Quarry remote has it already.
   */
  private void transfer(String md5) throws IOException {
    String key = new DvcHash(md5, false).key(dvcPrefix);
    long limit = source.size() >= 0 ? source.size() : sizeOf(key);
    Path file = temp.resolve(UUID.randomUUID() + ".part");
    try {
      MessageDigest md5Hash = md5();
      MessageDigest sha256 = Digest.sha256();
      long length = 0;
      try (InputStream in = new LimitedInputStream(dvc.get(key), limit, "Cannot import " + source.hash() + ": "
          + dvc.url(key) + " is larger than " + limit + " bytes, " + (source.size() >= 0
              ? "the size of the whole folder its .dvc file declares" : "its size when it was listed"));
          OutputStream out = Files.newOutputStream(file)) {
        byte[] buffer = new byte[256 << 10];
        for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
          if (source.size() >= 0 && bytesRead.addAndGet(read) > source.size()) {
            throw new IllegalArgumentException("Cannot import " + source.hash() + ": the files it lists hold more"
                + " than the " + source.size() + " bytes its .dvc file declares (" + dvc.url(key) + " was being"
                + " read)");
          }
          md5Hash.update(buffer, 0, read);
          sha256.update(buffer, 0, read);
          out.write(buffer, 0, read);
          length += read;
        }
      } catch (NoSuchObjectException e) {
        throw missing(key);
      }
      String actual = HexFormat.of().formatHex(md5Hash.digest());
      if (!actual.equals(md5)) {
        throw new IOException("Cannot import " + source.hash() + ": " + dvc.url(key) + " is corrupt: its bytes hash"
            + " to md5 " + actual + ", not " + md5);
      }
      byte[] sha = sha256.digest();
      Digest digest = new Digest(HexFormat.of().formatHex(sha), length);
      digests.put(md5, digest);
      if (digest.isEmpty()) {
        return; // the empty blob is never stored
      }
      String blobKey = cas.layout().blobKey(digest);
      if (cas.store().head(blobKey).isPresent()) {
        reused.add(digest);
        return;
      }
      cas.store().put(blobKey, new HashedContent(length, sha, () -> Files.newInputStream(file)));
      copiedBlobs.incrementAndGet();
      copiedBytes.addAndGet(length);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private long sizeOf(String key) throws IOException {
    return dvc.head(key).map(ObjectInfo::size).orElseThrow(() -> missing(key));
  }

  private IOException missing(String key) {
    return new MissingObjectException("Cannot import " + source.hash() + ": " + dvc.url(key)
        + " is missing from the DVC remote (dvc push it first)");
  }

  /** The name a single tracked file gets in the version: its .dvc file's path, last component. */
  private String fileName() {
    if (source.path() == null) {
      throw new IllegalArgumentException("Cannot import " + source.hash() + ": a single file needs its .dvc file"
          + " (for its name)");
    }
    String name = source.path().substring(source.path().lastIndexOf('/') + 1);
    DirListing.requireRelative("Invalid .dvc file for " + source.hash() + ": ", name);
    return name;
  }

  /** The listing as nested folders: a name maps to a nested map (a folder) or to the md5 of a file. */
  private static Map<String, Object> tree(List<DirListing.Entry> entries) {
    Map<String, Object> root = new TreeMap<>();
    for (DirListing.Entry entry : entries) {
      String[] components = entry.relpath().split("/");
      Map<String, Object> folder = root;
      for (int i = 0; i < components.length - 1; i++) {
        @SuppressWarnings("unchecked")
        Map<String, Object> next = (Map<String, Object>) folder.computeIfAbsent(components[i], k -> new TreeMap<>());
        folder = next;
      }
      folder.put(components[components.length - 1], entry.md5());
    }
    return root;
  }

  /** A folder's manifest, its subfolders' first; each manifest is added to the list of its depth. */
  private Manifest build(Map<String, Object> folder, int depth, List<List<Manifest>> levels) {
    List<TreeEntry> entries = new ArrayList<>();
    for (Map.Entry<String, Object> child : folder.entrySet()) {
      if (child.getValue() instanceof String md5) {
        entries.add(TreeEntry.file(child.getKey(), FILE_MODE, digests.get(md5)));
      } else {
        @SuppressWarnings("unchecked")
        Manifest sub = build((Map<String, Object>) child.getValue(), depth + 1, levels);
        entries.add(TreeEntry.directory(child.getKey(), FOLDER_MODE, sub.digest(), sub.files(), sub.bytes()));
      }
    }
    Manifest manifest = Manifest.of(entries);
    while (levels.size() <= depth) {
      levels.add(new ArrayList<>());
    }
    levels.get(depth).add(manifest);
    return manifest;
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

  private static MessageDigest md5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot hash: this JVM has no MD5", e);
    }
  }
}
