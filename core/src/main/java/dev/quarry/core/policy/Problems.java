package dev.quarry.core.policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Problems met under a policy: counted by kind, the warnings kept (up to a cap, so a million bad records do not fill
 * the memory), and an abort thrown as the error the caller names. Thread-safe.
 */
public final class Problems {
  private static final int MAX_WARNINGS = 100;

  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
  private final List<String> warnings = Collections.synchronizedList(new ArrayList<>());

  /**
   * Records one problem of {@code kind}: with {@code abort} throws the error {@code failure} makes; otherwise counts
   * it, and with {@code warn} keeps its message.
   */
  public <E extends Exception> void report(Policy policy, String kind, String message, Supplier<E> failure) throws E {
    if (policy == Policy.ABORT) {
      throw failure.get();
    }
    counts.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
    if (policy == Policy.WARN && warnings.size() < MAX_WARNINGS) {
      warnings.add(message);
    }
  }

  /** Problems of {@code kind} counted so far. */
  public long count(String kind) {
    AtomicLong count = counts.get(kind);
    return count == null ? 0 : count.get();
  }

  /** Every kind with its count. */
  public Map<String, Long> counts() {
    Map<String, Long> snapshot = new java.util.TreeMap<>();
    counts.forEach((kind, count) -> snapshot.put(kind, count.get()));
    return snapshot;
  }

  /** The warnings kept, in the order met (at most 100). */
  public List<String> warnings() {
    synchronized (warnings) {
      return List.copyOf(warnings);
    }
  }
}
