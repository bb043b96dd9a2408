package dev.quarry.core.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.UnaryOperator;

/**
 * Opens stores by URL, one per S3 bucket (each with its own connection pool of {@link S3Settings#requestsInFlight()})
 * and one for the whole local filesystem, and closes them all. See {@link #locate(String)} for the URLs. Thread-safe.
 */
public final class ObjectStores implements AutoCloseable {
  private final S3Settings s3;
  private final UnaryOperator<ObjectStore> decorate;
  private final ConcurrentMap<String, ObjectStore> stores = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /** {@code s3} applies to every s3:// URL. */
  public ObjectStores(S3Settings s3) {
    this(s3, UnaryOperator.identity());
  }

  /**
   * As {@link #ObjectStores(S3Settings)}, every store opened passed through {@code decorate} (tests put latches and
   * faults in front of real stores with it).
   */
  public ObjectStores(S3Settings s3, UnaryOperator<ObjectStore> decorate) {
    this.s3 = s3;
    this.decorate = decorate;
  }

  /**
   * The store and key of {@code url}: {@code s3://bucket/key}, {@code file:///absolute/path}, or a plain absolute or
   * relative local path. Local paths all share one {@link FileStore} rooted at "/", and their key is the absolute path
   * without its leading '/'; so {@code file:///data/x} and {@code /data/x} are the same store and key
   * {@code data/x}. A plain path is made absolute and normalized; URLs are taken literally. The key may be empty or
   * end with '/' when the URL names a prefix.
   *
   * @throws IllegalArgumentException "Invalid object URL: ...", "Invalid bucket name: ..." or "Invalid object key: ..."
   */
  public Location locate(String url) {
    ObjectUrl parsed = ObjectUrl.parse(url);
    requireOpen(url);
    ObjectStore store = stores.get(parsed.storeId());
    return new Location(store != null ? store : open(parsed, url), parsed.key());
  }

  /**
   * A local folder as a store of its own whose writes are not fsynced ({@link FileStore#unsynced}), for data that
   * does not outlive this process (a local sort's scratch); its key is empty, and its requests count in
   * {@link #requests()} with the others'.
   */
  public synchronized Location locateUnsynced(Path folder) {
    Path root = folder.toAbsolutePath().normalize();
    requireOpen(root.toString());
    return new Location(stores.computeIfAbsent("unsynced:" + root, id -> decorate.apply(FileStore.unsynced(root))),
        "");
  }

  private void requireOpen(String url) {
    if (closed) {
      throw new IllegalStateException("Cannot open the store of " + url + ": the object stores are closed");
    }
  }

  private synchronized ObjectStore open(ObjectUrl parsed, String url) {
    requireOpen(url);
    return stores.computeIfAbsent(parsed.storeId(),
        id -> decorate.apply(parsed.isFile() ? new FileStore(Path.of("/")) : S3Store.open(parsed.bucket(), s3)));
  }

  /** The requests of every store opened so far, summed: a snapshot. */
  public RequestCounts requests() {
    RequestCounts sum = new RequestCounts().snapshot();
    for (ObjectStore store : stores.values()) {
      sum = sum.plus(store.requests());
    }
    return sum;
  }

  /** Closes every store; {@link #requests()} still answers afterwards. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<IOException> failures = new ArrayList<>();
    for (ObjectStore store : stores.values()) {
      try {
        store.close();
      } catch (IOException e) {
        failures.add(e);
      }
    }
    if (!failures.isEmpty()) {
      UncheckedIOException failure = new UncheckedIOException("Cannot close " + failures.size() + " object stores: "
          + failures.getFirst().getMessage(), failures.getFirst());
      failures.stream().skip(1).forEach(failure::addSuppressed);
      throw failure;
    }
  }
}
