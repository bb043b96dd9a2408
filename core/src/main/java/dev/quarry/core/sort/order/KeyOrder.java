package dev.quarry.core.sort.order;

import dev.quarry.core.sort.records.RecordEntry;
import java.util.Comparator;

/**
 * Record keys in UTF-8 byte order (the order of code points, which is what {@code LC_ALL=C sort} and S3 listings
 * use), ties broken by input shard and position. Extract runs are sorted this way, so that merging them puts every
 * copy of a key side by side.
 */
public final class KeyOrder {
  public static final Comparator<RecordEntry> ENTRIES = (a, b) -> {
    int byKey = compareKeys(a.key(), b.key());
    if (byKey != 0) {
      return byKey;
    }
    return InputOrder.ENTRIES.compare(a, b);
  };

  private KeyOrder() {}

  /** Compares by code point, which for UTF-8 is byte order (String.compareTo compares UTF-16 units instead). */
  public static int compareKeys(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Boolean.compare(i < a.length(), j < b.length());
  }
}
