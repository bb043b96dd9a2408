package dev.quarry.core.fs;

import java.io.Closeable;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Open files kept for many reads, each from its first read until this closes, at most {@link OpenFileLimit#PER_CACHE}
 * of them (an input's records, a spilled pack's): an open, a stat and a close per read cost more than reading a
 * small record. Callers open outside any lock, so that a file slow to open (a hung network file system) holds up no
 * other, then offer what they opened ({@link #keep}).
 */
public final class KeptOpen<K, V extends Closeable> implements Closeable {
  private final Map<K, V> kept = new ConcurrentHashMap<>();
  private final ReentrantLock lock = new ReentrantLock();

  /** The one kept for {@code key}; null if none is. */
  public V get(K key) {
    return kept.get(key);
  }

  /** Whether there is no room for another: a caller then opens for its one read, as if nothing were kept. */
  public boolean full() {
    return kept.size() >= OpenFileLimit.PER_CACHE;
  }

  /**
   * Keeps {@code opened} for {@code key} and returns it; if another was kept for it meanwhile, closes {@code opened}
   * and returns that one; with no room left, returns null, and {@code opened} stays the caller's.
   */
  public V keep(K key, V opened) throws IOException {
    V earlier;
    lock.lock(); // not a monitor: on Java 21 a virtual thread waiting in or for one keeps its carrier
    try {
      earlier = kept.get(key);
      if (earlier == null) {
        if (full()) {
          return null;
        }
        kept.put(key, opened);
        return opened;
      }
    } finally {
      lock.unlock();
    }
    opened.close(); // another read opened it first
    return earlier;
  }

  /** Closes every one kept; the first failure is thrown, with the others suppressed in it. */
  @Override
  public void close() throws IOException {
    IOException failed = null;
    for (V open : kept.values()) {
      try {
        open.close();
      } catch (IOException e) {
        if (failed == null) {
          failed = e;
        } else {
          failed.addSuppressed(e);
        }
      }
    }
    kept.clear();
    if (failed != null) {
      throw failed;
    }
  }
}
