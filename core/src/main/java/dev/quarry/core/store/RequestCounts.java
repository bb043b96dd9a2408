package dev.quarry.core.store;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Requests made to a store, one counter per {@link RequestKind}. A store's own counts are live and thread-safe;
 * {@link #snapshot()}, {@link #minus(RequestCounts)} and {@link #plus(RequestCounts)} return immutable copies, which
 * results carry. Two counts are equal when every counter is.
 */
public final class RequestCounts {
  private static final RequestKind[] KINDS = RequestKind.values();

  private final AtomicLongArray counts;
  private final boolean immutable;

  /** Live counters, all zero. */
  public RequestCounts() {
    this(new AtomicLongArray(KINDS.length), false);
  }

  private RequestCounts(AtomicLongArray counts, boolean immutable) {
    this.counts = counts;
    this.immutable = immutable;
  }

  /** Counts one request; each HTTP attempt, retries included, is one request. */
  public void count(RequestKind kind) {
    if (immutable) {
      throw new UnsupportedOperationException("Cannot count a " + kind + " request: these counts are a snapshot");
    }
    counts.incrementAndGet(kind.ordinal());
  }

  public long get(RequestKind kind) {
    return counts.get(kind.ordinal());
  }

  public long head() {
    return get(RequestKind.HEAD);
  }

  public long list() {
    return get(RequestKind.LIST);
  }

  /** GET requests, ranged or not. */
  public long get() {
    return get(RequestKind.GET);
  }

  /** PutObject plus CreateMultipartUpload, UploadPart and CompleteMultipartUpload. */
  public long put() {
    return get(RequestKind.PUT);
  }

  /** DeleteObject plus AbortMultipartUpload. */
  public long delete() {
    return get(RequestKind.DELETE);
  }

  public long total() {
    long total = 0;
    for (RequestKind kind : KINDS) {
      total += get(kind);
    }
    return total;
  }

  /** An immutable copy of the counts now. */
  public RequestCounts snapshot() {
    return combine(this, 0);
  }

  /** The requests made since {@code earlier}, a snapshot of these counts, for per-phase numbers. */
  public RequestCounts minus(RequestCounts earlier) {
    return combine(earlier, -1);
  }

  /** The sum of these counts and {@code other}, for the requests of several stores. */
  public RequestCounts plus(RequestCounts other) {
    return combine(other, 1);
  }

  private RequestCounts combine(RequestCounts other, int sign) {
    long[] result = new long[KINDS.length];
    for (int i = 0; i < result.length; i++) {
      result[i] = sign == 0 ? counts.get(i) : counts.get(i) + sign * other.counts.get(i);
    }
    return new RequestCounts(new AtomicLongArray(result), true);
  }

  private long[] values() {
    long[] values = new long[KINDS.length];
    for (int i = 0; i < values.length; i++) {
      values[i] = counts.get(i);
    }
    return values;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof RequestCounts counts && Arrays.equals(values(), counts.values());
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(values());
  }

  /** For example {@code HEAD 1, LIST 3, GET 10, PUT 7, DELETE 0 (21 in all)}. */
  @Override
  public String toString() {
    StringBuilder text = new StringBuilder();
    for (RequestKind kind : KINDS) {
      text.append(text.isEmpty() ? "" : ", ").append(kind).append(' ').append(get(kind));
    }
    return text.append(" (").append(total()).append(" in all)").toString();
  }
}
