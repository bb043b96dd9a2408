package dev.quarry.core.store;

import java.io.IOException;
import java.time.Duration;
import java.io.InputStream;
import java.util.Optional;
import java.util.Set;

/** A store that runs {@link #before} ahead of every request of another: for injected faults and delays in tests. */
public class DelegatingStore implements ObjectStore {
  private final ObjectStore delegate;

  public DelegatingStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  /** What runs before each request of a store made by {@link #withHook}. */
  public interface Hook {
    void before(String kind, String key) throws IOException;
  }

  /** {@code delegate} with {@code hook} run ahead of every request: for tests of other packages. */
  public static ObjectStore withHook(ObjectStore delegate, Hook hook) {
    return new DelegatingStore(delegate) {
      @Override
      public void before(String kind, String key) throws IOException {
        hook.before(kind, key);
      }
    };
  }

  /** Called with the request kind and key before each request; may throw or sleep. */
  public void before(String kind, String key) throws IOException {}

  @Override
  public Optional<ObjectInfo> head(String key) throws IOException {
    before("HEAD", key);
    return delegate.head(key);
  }

  @Override
  public InputStream get(String key) throws IOException {
    before("GET", key);
    return delegate.get(key);
  }

  @Override
  public InputStream getRange(String key, long offset, long length) throws IOException {
    before("GET", key);
    return delegate.getRange(key, offset, length);
  }

  @Override
  public ObjectStart getStart(String key, int maxLength) throws IOException {
    before("GET", key);
    return delegate.getStart(key, maxLength);
  }

  @Override
  public void put(String key, byte[] data) throws IOException {
    before("PUT", key);
    delegate.put(key, data);
  }

  @Override
  public boolean putIfAbsent(String key, byte[] data) throws IOException {
    before("PUT", key);
    return delegate.putIfAbsent(key, data);
  }

  @Override
  public void put(String key, RangedContent content) throws IOException {
    before("PUT", key);
    delegate.put(key, content);
  }

  @Override
  public boolean isLocal() {
    return delegate.isLocal();
  }

  @Override
  public ObjectUpload upload(String key) throws IOException {
    before("PUT", key);
    return delegate.upload(key);
  }

  @Override
  public long uploadBufferBytes(long size) {
    return delegate.uploadBufferBytes(size);
  }

  @Override
  public ListPage list(String prefix, String startAfter, int maxKeys) throws IOException {
    before("LIST", prefix);
    return delegate.list(prefix, startAfter, maxKeys);
  }

  @Override
  public void delete(String key) throws IOException {
    before("DELETE", key);
    delegate.delete(key);
  }

  @Override
  public int removeAbandonedUploads(String prefix, Duration olderThan) throws IOException {
    return delegate.removeAbandonedUploads(prefix, olderThan);
  }

  @Override
  public int removeUnfinishedUploadsOf(String prefix, Set<String> keys) throws IOException {
    return delegate.removeUnfinishedUploadsOf(prefix, keys);
  }

  @Override
  public String url(String key) {
    return delegate.url(key);
  }

  @Override
  public RequestCounts requests() {
    return delegate.requests();
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }
}
