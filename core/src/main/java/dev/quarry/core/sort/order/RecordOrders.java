package dev.quarry.core.sort.order;

import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Comparator;
import net.jpountz.xxhash.XXHash64;
import net.jpountz.xxhash.XXHashFactory;

/**
 * The comparator of each order kind. Every order is total and depends only on the records, never on which worker
 * read what first: ties fall back to the key, then to input position.
 */
public final class RecordOrders {
  private static final XXHash64 XX_HASH = XXHashFactory.safeInstance().hash64(); // same hashes as the others, without sun.misc.Unsafe

  private RecordOrders() {}

  /**
   * Key map order: by the index of the output template a record maps to (which the planner stores in the entry's
   * content key), then by key.
   */
  public static final Comparator<RecordEntry> BY_TEMPLATE =
      Comparator.comparing((RecordEntry e) -> (Long) e.contentKey()).thenComparing(KeyOrder.ENTRIES);

  /** The comparator for {@code order}. */
  public static Comparator<RecordEntry> of(SortSpec.Order order) {
    return switch (order.kind()) {
      case ALPHANUMERIC -> order.isDescending() ? KeyOrder.ENTRIES.reversed() : KeyOrder.ENTRIES;
      case NONE -> InputOrder.ENTRIES;
      case MD5 -> Comparator.comparing((RecordEntry e) -> md5(e.key()), Arrays::compareUnsigned)
          .thenComparing(KeyOrder.ENTRIES);
      case SHUFFLE -> shuffle(order.seed());
      case CONTENT -> contentOrder(order.isDescending());
      case KEYMAP -> BY_TEMPLATE;
    };
  }

  /** Whether records already in key order (the merged extract runs) are in this order without sorting again. */
  public static boolean isKeyOrder(SortSpec.Order order) {
    return order.kind() == OrderKind.ALPHANUMERIC && !order.isDescending();
  }

  /**
   * A seeded random permutation: records ordered by a 64-bit XXHash of their key under the seed. The same seed gives
   * the same order whatever order the extract workers finished in.
   */
  static Comparator<RecordEntry> shuffle(long seed) {
    return Comparator.comparing((RecordEntry e) -> shuffleRank(seed, e.key()), Long::compareUnsigned)
        .thenComparing(KeyOrder.ENTRIES);
  }

  static long shuffleRank(long seed, String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    return XX_HASH.hash(bytes, 0, bytes.length, seed);
  }

  static byte[] md5(String key) {
    try {
      return MessageDigest.getInstance("MD5").digest(key.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 is part of every JDK", e);
    }
  }

  /** By content key (numbers numerically, strings by code point); records without a key after all others. */
  private static Comparator<RecordEntry> contentOrder(boolean descending) {
    Comparator<Object> values = RecordOrders::compareContent;
    Comparator<Object> direction = descending ? values.reversed() : values;
    return Comparator.comparing(RecordEntry::contentKey, Comparator.nullsLast(direction))
        .thenComparing(KeyOrder.ENTRIES);
  }

  private static int compareContent(Object a, Object b) {
    if (a instanceof Long x && b instanceof Long y) {
      return Long.compare(x, y);
    }
    if (a instanceof Double x && b instanceof Double y) {
      return Double.compare(x, y);
    }
    if (a instanceof String x && b instanceof String y) {
      return KeyOrder.compareKeys(x, y);
    }
    throw new IllegalStateException("Cannot compare content keys of different types: " + a + " and " + b);
  }
}
