package dev.quarry.core.sync.remote;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.cas.CasLayout;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.Ref;
import dev.quarry.core.sync.cas.RefLogEntry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** A content-addressed store under one prefix of an object store: refs, manifests and blobs by digest. */
public final class CasRemote {
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
      return Optional.of(Ref.parse(name, store.getBytes(layout.refKey(name))));
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
   * The root of a version: a ref name, or {@code sha256:<hex>} of a root manifest. Throws "Cannot find version" when
   * neither exists.
   */
  public Manifest resolveVersion(String version) throws IOException {
    if (version.startsWith("sha256:")) {
      return fetchManifest(Digest.parseHex(version), -1);
    }
    Ref ref = readRef(version).orElseThrow(() -> new MissingObjectException("Cannot find version " + version + ": "
        + url + "refs/" + version + " does not exist (push it first, or name a root digest sha256:...)"));
    Digest root = ref.rootDigest();
    return fetchManifest(root.hex(), root.size());
  }

  /** GET of a manifest, verified against its digest before it is parsed. */
  public Manifest fetchManifest(Digest digest) throws IOException {
    return fetchManifest(digest.hex(), digest.size());
  }

  private Manifest fetchManifest(String hex, long size) throws IOException {
    String key = CasLayout.keyIn(layout.space(CasLayout.TREES), new Digest(hex, Math.max(size, 0)));
    byte[] data;
    try {
      data = store.getBytes(key);
    } catch (NoSuchObjectException e) {
      throw new MissingObjectException("Cannot read manifest sha256:" + hex + ": " + store.url(key)
          + " does not exist (the remote lost an object a ref needs; push the version again)");
    }
    Digest actual = Digest.of(data);
    if (!actual.hex().equals(hex) || (size >= 0 && actual.size() != size)) {
      throw new IOException("Cannot read manifest sha256:" + hex + ": " + store.url(key) + " is corrupt (its bytes"
          + " hash to " + actual + "); push the version again to repair it");
    }
    return Manifest.decode(data);
  }

  /** The manifests of these digests, each fetched once and verified, {@link #inFlight()} at a time. */
  public Map<Digest, Manifest> fetchManifests(Collection<Digest> digests) throws IOException {
    Map<Digest, Manifest> fetched = new ConcurrentHashMap<>();
    InFlight.all(new HashSet<>(digests), inFlight, digest -> fetched.put(digest, fetchManifest(digest)));
    return fetched;
  }

  public void putManifest(Manifest manifest) throws IOException {
    store.put(layout.treeKey(manifest.digest()), manifest.encoded());
  }

  /** The gc generation: changes whenever a gc deleted something, which invalidates local indexes. */
  public String gcGeneration() throws IOException {
    try {
      return new String(store.getBytes(layout.gcGenerationKey()), StandardCharsets.UTF_8).trim();
    } catch (NoSuchObjectException e) {
      return "initial";
    }
  }
}
