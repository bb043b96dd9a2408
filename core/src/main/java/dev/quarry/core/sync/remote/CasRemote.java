package dev.quarry.core.sync.remote;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.store.LimitedInputStream;
import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.cas.CasLayout;
import dev.quarry.core.sync.cas.ChunkIndex;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.Ref;
import dev.quarry.core.sync.cas.RefLogEntry;
import dev.quarry.core.sync.cas.TreeObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A content-addressed store under one prefix of an object store: refs, manifests and blobs by digest. Nothing read
 * from it is trusted: every read stops one byte past the size the object's digest (or, for refs and manifests named
 * by a bare hash, its kind) allows, and manifests are verified against their digest before they are parsed.
 */
public final class CasRemote {
  /** The most a ref or the gc generation may hold: a few hundred bytes when honest. */
  private static final int MAX_SMALL_OBJECT = 64 << 10;

  private final ObjectStore store;
  private final CasLayout layout;
  private final String url;
  private final int inFlight;

  public CasRemote(ObjectStore store, String prefix, int inFlight) {
    this.store = store;
    this.layout = new CasLayout(prefix);
    this.url = store.url(layout.prefix());
    this.inFlight = Math.max(1, inFlight);
  }

  public ObjectStore store() {
    return store;
  }

  public CasLayout layout() {
    return layout;
  }

  /** The remote's URL, which names its local index. */
  public String url() {
    return url;
  }

  public int inFlight() {
    return inFlight;
  }

  public PresenceCheck presence() {
    return new PresenceCheck(store, inFlight);
  }

  public Optional<Ref> readRef(String name) throws IOException {
    try {
      String key = layout.refKey(name);
      return Optional.of(Ref.parse(name, readAll(key, MAX_SMALL_OBJECT,
          "Cannot read ref " + name + ": " + store.url(key) + " is larger than a ref may be (64 KiB)")));
    } catch (NoSuchObjectException e) {
      return Optional.empty();
    }
  }

  /**
   * Moves a ref, after appending the move to its log: an entry whose ref write then failed names a complete version
   * all the same, and gc keeps it for the log's retention.
   */
  public void writeRef(String name, Ref ref, Digest previous, String by, String command) throws IOException {
    refLog().append(RefLogEntry.of(name, Instant.now(), by, command, previous, ref));
    store.put(layout.refKey(name), ref.toJson());
  }

  public RefLog refLog() {
    return new RefLog(store, layout, inFlight);
  }

  /**
   * The root of a version, fully read: a ref name, or {@code sha256:<hex>} of a root manifest. Throws "Cannot find
   * version" when neither exists.
   */
  public Manifest resolveVersion(String version) throws IOException {
    return manifestOf(resolveRoot(version));
  }

  /**
   * The top object of a version's root (for a chunked root, its index alone), whose totals must be those its ref
   * declares: for commands that read only the chunks they need.
   */
  public TreeObject resolveRoot(String version) throws IOException {
    if (version.startsWith("sha256:")) {
      return fetchObject(Digest.parseHex(version), -1);
    }
    Ref ref = readRef(version).orElseThrow(() -> new MissingObjectException("Cannot find version " + version + ": "
        + url + "refs/" + version + " does not exist (push it first, or name a root digest sha256:...)"));
    Digest root = ref.rootDigest();
    TreeObject top = fetchObject(root.hex(), root.size());
    if (ref.files() != top.files() || ref.bytes() != top.bytes()) {
      throw new IllegalArgumentException("Invalid ref " + version + ": it declares " + ref.files() + " files and "
          + ref.bytes() + " bytes, but its root manifest holds " + top.files() + " files and "
          + top.bytes() + " bytes");
    }
    return top;
  }

  /** GET of a blob, bounded by its digest: reading past its declared size throws instead of returning more. */
  public InputStream openBlob(Digest digest) throws IOException {
    String key = layout.blobKey(digest);
    return new LimitedInputStream(store.get(key), digest.size(),
        store.url(key) + " is larger than its digest declares (" + digest.size() + " bytes)");
  }

  /**
   * A folder's whole manifest: its top object, and for a chunked folder every chunk and index below it, each GET
   * verified against its digest before it is parsed, the whole checked as {@link Manifest#assemble} does.
   */
  public Manifest fetchManifest(Digest digest) throws IOException {
    return manifestOf(fetchObject(digest));
  }

  /**
   * The whole folder whose top object this is: reads a chunked folder's chunks a level at a time, once the sizes
   * their digests declare fit in memory.
   */
  public Manifest manifestOf(TreeObject top) throws IOException {
    return VersionPath.whole(this::fetchObjects, top);
  }

  /** GET of one tree object (a manifest or a chunk index), verified against its digest before it is parsed. */
  public TreeObject fetchObject(Digest digest) throws IOException {
    return fetchObject(digest.hex(), digest.size());
  }

  /** {@code size} -1: unknown (a root named by its hash alone), so bounded by the largest a manifest may be. */
  private TreeObject fetchObject(String hex, long size) throws IOException {
    String key = CasLayout.keyIn(layout.space(CasLayout.TREES), new Digest(hex, Math.max(size, 0)));
    String what = "Cannot read manifest sha256:" + hex + ": ";
    if (size > Manifest.MAX_BYTES) {
      throw new IOException(what + "it is declared " + size + " bytes, larger than a manifest may be (256 MiB)");
    }
    byte[] data;
    try {
      data = readAll(key, size >= 0 ? size : Manifest.MAX_BYTES, what + store.url(key) + (size >= 0
          ? " is larger than its digest declares (" + size + " bytes)"
          : " is larger than a manifest may be (256 MiB)"));
    } catch (NoSuchObjectException e) {
      throw new MissingObjectException(what + store.url(key)
          + " does not exist (the remote lost an object a ref needs; push the version again)");
    }
    Digest actual = Digest.of(data);
    if (!actual.hex().equals(hex) || (size >= 0 && actual.size() != size)) {
      throw new IOException(what + store.url(key) + " is corrupt (its bytes hash to " + actual
          + "); push the version again to repair it");
    }
    try {
      return TreeObject.decode(data);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + e.getMessage(), e);
    }
  }

  /**
   * The bytes of a small object Quarry writes (a ref, a lease, a gc marker): at most 64 KiB are read, and a larger
   * one is refused with {@link LimitedInputStream.TooLargeException} naming its key.
   */
  public byte[] readSmall(String key) throws IOException {
    return readAll(key, MAX_SMALL_OBJECT, "Cannot read " + store.url(key) + ": it is larger than it may be (64 KiB)");
  }

  /** GET of an object that may hold at most {@code limit} bytes: reading past it throws {@code tooLarge}. */
  public InputStream openBounded(String key, long limit, String tooLarge) throws IOException {
    return new LimitedInputStream(store.get(key), limit, tooLarge);
  }

  /** The bytes of an object that may hold at most {@code limit}; {@code tooLarge} says what when it holds more. */
  private byte[] readAll(String key, long limit, String tooLarge) throws IOException {
    try (InputStream in = new LimitedInputStream(store.get(key), limit, tooLarge)) {
      return in.readAllBytes();
    }
  }

  /** The whole manifests of these folders, each fetched once and verified, {@link #inFlight()} at a time. */
  public Map<Digest, Manifest> fetchManifests(Collection<Digest> digests) throws IOException {
    Map<Digest, Manifest> fetched = new ConcurrentHashMap<>();
    InFlight.all(new HashSet<>(digests), inFlight, digest -> fetched.put(digest, fetchManifest(digest)));
    return fetched;
  }

  /** The tree objects of these digests (top objects only, for folders), each fetched once and verified. */
  public Map<Digest, TreeObject> fetchObjects(Collection<Digest> digests) throws IOException {
    Map<Digest, TreeObject> fetched = new ConcurrentHashMap<>();
    InFlight.all(new HashSet<>(digests), inFlight, digest -> fetched.put(digest, fetchObject(digest)));
    return fetched;
  }

  /** Writes every object of a folder, children first, so that its top is written last. */
  public void putManifest(Manifest manifest) throws IOException {
    for (TreeObject object : manifest.objects()) {
      putObject(object);
    }
  }

  public void putObject(TreeObject object) throws IOException {
    store.put(layout.treeKey(object.digest()), object.encoded());
  }

  /** The gc generation: changes whenever a gc deleted something, which invalidates local indexes. */
  public String gcGeneration() throws IOException {
    try {
      String key = layout.gcGenerationKey();
      return new String(readAll(key, MAX_SMALL_OBJECT, "Cannot read the gc generation: " + store.url(key)
          + " is larger than it may be (64 KiB)"), StandardCharsets.UTF_8).trim();
    } catch (NoSuchObjectException e) {
      return "initial";
    }
  }
}
