package dev.quarry.core.store;

/** Object store requests by kind, as results report them in JSON. */
public record RequestTotals(long head, long list, long get, long put, long delete) {
  public static RequestTotals of(RequestCounts counts) {
    return new RequestTotals(counts.head(), counts.list(), counts.get(), counts.put(), counts.delete());
  }

  public long total() {
    return head + list + get + put + delete;
  }
}
