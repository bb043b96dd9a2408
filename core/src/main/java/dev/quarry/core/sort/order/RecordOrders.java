package dev.quarry.core.sort.order;

import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Comparator;
import net.jpountz.xxhash.XXHash64;
import net.jpountz.xxhash.XXHashFactory;

/**
 * The comparator of each order kind, over entries {@link #ranked} for it. Every order is total and depends only on
 * the records, never on which worker read what first: ties fall back to the key, then to input position.
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
      case MD5 -> byRank().thenComparing((RecordEntry e) -> md5(e.key()), Arrays::compareUnsigned)
          .thenComparing(KeyOrder.ENTRIES); // the whole MD5 only when the first 8 bytes tie
      case SHUFFLE -> byRank().thenComparing(KeyOrder.ENTRIES);
      case CONTENT -> contentOrder(order.isDescending());
      case KEYMAP -> BY_TEMPLATE;
    };
  }

  /**
   * The entry as {@link #of} compares it. Shuffle and md5 order by a hash of the key: it is computed here, once per
   * record, and kept as the entry's content key (which those orders do not otherwise use), so a comparison reads a
   * long instead of hashing two keys (an allocation and a hash each, about 20 times per record). Other orders take
   * the entry as it is.
   */
  public static RecordEntry ranked(SortSpec.Order order, RecordEntry entry) {
    return switch (order.kind()) {
      case SHUFFLE -> entry.withContentKey(shuffleRank(order.seed(), entry.key()));
      case MD5 -> entry.withContentKey(ByteBuffer.wrap(md5(entry.key())).getLong());
      default -> entry;
    };
  }

  /** Whether records already in key order (the merged extract runs) are in this order without sorting again. */
  public static boolean isKeyOrder(SortSpec.Order order) {
    return order.kind() == OrderKind.ALPHANUMERIC && !order.isDescending();
  }

  /** By the rank {@link #ranked} stored, as an unsigned 64-bit number. */
  private static Comparator<RecordEntry> byRank() {
    return (a, b) -> Long.compareUnsigned((Long) a.contentKey(), (Long) b.contentKey());
  }

  /**
   * A seeded random permutation: records ordered by a 64-bit XXHash of their key under the seed. The same seed gives
   * the same order whatever order the extract workers finished in.
   */
  static long shuffleRank(long seed, String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    return XX_HASH.hash(bytes, 0, bytes.length, seed);
  }

  /**
   * The unseeded 64-bit XXHash of the key: content and none orders route copies of a key to one partition step by it
   * ({@code Partitioner}).
   */
  public static long keyHash(String key) {
    return shuffleRank(0, key);
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
