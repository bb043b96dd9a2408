package dev.quarry.core.sort.order;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RecordOrdersTest {
  private static List<RecordEntry> entries(int count) {
    List<RecordEntry> entries = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      entries.add(new RecordEntry(String.format("sample-%05d", i), i % 7, i, false, List.of(), 0, (long) (i % 10)));
    }
    return entries;
  }

  private static List<String> sorted(List<RecordEntry> entries, SortSpec.Order order) {
    List<RecordEntry> copy = new ArrayList<>(entries.stream().map(e -> RecordOrders.ranked(order, e)).toList());
    copy.sort(RecordOrders.of(order));
    return copy.stream().map(RecordEntry::key).toList();
  }

  @Test
  void shuffleDependsOnTheSeedAndNotOnArrivalOrder() {
    List<RecordEntry> entries = entries(2000);
    SortSpec.Order seven = new SortSpec.Order(OrderKind.SHUFFLE, null, 7L, null, null);
    List<String> first = sorted(entries, seven);
    List<RecordEntry> arrivedDifferently = new ArrayList<>(entries);
    Collections.shuffle(arrivedDifferently, new Random(99));
    assertThat(sorted(arrivedDifferently, seven)).isEqualTo(first);
    assertThat(sorted(entries, new SortSpec.Order(OrderKind.SHUFFLE, null, 8L, null, null))).isNotEqualTo(first);
    // A real permutation: far from the input order (rank correlation near zero).
    long inPlace = 0;
    for (int i = 0; i < first.size(); i++) {
      inPlace += first.get(i).equals(entries.get(i).key()) ? 1 : 0;
    }
    assertThat(inPlace).isLessThan(20);
  }

  @Test
  void md5OrderIsTheOrderOfTheKeysMd5() {
    List<String> keys = sorted(entries(200), new SortSpec.Order(OrderKind.MD5, null, null, null, null));
    List<String> byHex = new ArrayList<>(keys);
    byHex.sort((a, b) -> java.util.HexFormat.of().formatHex(RecordOrders.md5(a))
        .compareTo(java.util.HexFormat.of().formatHex(RecordOrders.md5(b))));
    assertThat(keys).isEqualTo(byHex);
  }

  /** Shuffle and md5 compare a hash of the key, computed once per record: a comparison allocates nothing. */
  @Test
  void hashedOrdersHashEachKeyOnceNotOnEveryComparison() {
    List<RecordEntry> entries = entries(100_000);
    Collections.shuffle(entries, new Random(3));
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    for (OrderKind kind : List.of(OrderKind.SHUFFLE, OrderKind.MD5)) {
      SortSpec.Order order = new SortSpec.Order(kind, null, kind == OrderKind.SHUFFLE ? 5L : null, null, null);
      List<RecordEntry> ranked = new ArrayList<>(entries.stream().map(e -> RecordOrders.ranked(order, e)).toList());
      long before = threads.getCurrentThreadAllocatedBytes();
      ranked.sort(RecordOrders.of(order)); // about 1.6 million comparisons
      long allocated = threads.getCurrentThreadAllocatedBytes() - before;
      assertThat(allocated).as("%s: bytes allocated by the sort", kind).isLessThan(4L << 20);
    }
  }

  @Test
  void contentOrderSortsByValueThenKeyAndPutsMissingKeysLast() {
    List<RecordEntry> entries = new ArrayList<>(entries(30));
    entries.add(new RecordEntry("no-label", 0, 99, false, List.of(), 0, null));
    SortSpec.ContentKey cls = new SortSpec.ContentKey("cls", SortSpec.ContentType.INT);
    List<String> ascending = sorted(entries, new SortSpec.Order(OrderKind.CONTENT, false, null, cls, null));
    assertThat(ascending.subList(0, 3)).containsExactly("sample-00000", "sample-00010", "sample-00020");
    assertThat(ascending.get(30)).isEqualTo("no-label");
    List<String> descending = sorted(entries, new SortSpec.Order(OrderKind.CONTENT, true, null, cls, null));
    assertThat(descending.subList(0, 3)).containsExactly("sample-00009", "sample-00019", "sample-00029");
    assertThat(descending.get(30)).isEqualTo("no-label");
  }

  @Test
  void noneKeepsInputOrderAndAlphanumericCanDescend() {
    List<RecordEntry> entries = entries(50);
    List<String> none = sorted(entries, new SortSpec.Order(OrderKind.NONE, null, null, null, null));
    assertThat(none.get(0)).isEqualTo("sample-00000");
    assertThat(none.get(1)).isEqualTo("sample-00007"); // shard 0 first, then in position order
    List<String> down = sorted(entries, new SortSpec.Order(OrderKind.ALPHANUMERIC, true, null, null, null));
    assertThat(down.get(0)).isEqualTo("sample-00049");
  }
}
