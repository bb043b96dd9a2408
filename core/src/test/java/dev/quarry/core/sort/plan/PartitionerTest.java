package dev.quarry.core.sort.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.policy.Policy;
import dev.quarry.core.policy.Problems;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.OutputLocation;
import dev.quarry.core.sort.spec.SortSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

class PartitionerTest {
  private static final SortSpec.Order KEYMAP = new SortSpec.Order(OrderKind.KEYMAP, null, null, null,
      new SortSpec.Keymap("b.*\tfirst-{0..}.tar\na.*\tsecond-{0..}.tar\n", null, null));

  private static Keymap keymap() throws Exception {
    return Keymap.parse(KEYMAP.keymap().inline(), "\t", OutputLocation.of("/data/out/x-{0..}.tar"), Policy.ABORT,
        new Problems());
  }

  private static RecordEntry entry(String key) {
    return new RecordEntry(key, 0, 0, false, List.of(), 1, null);
  }

  @Test
  void aKeyMapOrderIsSplitByTemplateThenKey() throws Exception {
    Keymap keymap = keymap();
    List<String> splitters = List.of(Partitioner.rangeKey(KEYMAP, keymap, "b5"),
        Partitioner.rangeKey(KEYMAP, keymap, "a3"));
    assertThat(splitters).containsExactly("0000000000:b5", "0000000001:a3");
    Partitioner partitioner = new Partitioner(KEYMAP, 3, splitters, keymap);
    assertThat(partitioner.spreads()).isTrue();
    // The first template's keys come first whatever their letters: "b" maps to template 0, "a" to template 1.
    assertThat(List.of("b1", "b5", "b9", "a1", "a3", "a9"))
        .extracting(key -> partitioner.partitionOf(entry(key))).containsExactly(0, 1, 1, 1, 2, 2);
    assertThat(partitioner.partitionOf(entry("c1"))).as("a key of no line, dropped by partition 0").isZero();
  }

  @Test
  void contentAndNoneKeepEveryRecordInPartitionZero() {
    for (SortSpec.Order order : List.of(new SortSpec.Order(OrderKind.NONE, null, null, null, null),
        new SortSpec.Order(OrderKind.CONTENT, null, null, new SortSpec.ContentKey("cls", SortSpec.ContentType.INT),
            null))) {
      Partitioner partitioner = new Partitioner(order, 4, List.of("m"), null);
      assertThat(partitioner.spreads()).as(order.kind().toString()).isFalse();
      assertThat(partitioner.partitionOf(entry("z"))).isZero();
    }
  }

  @Test
  void aKeyMapOrderNeedsItsKeyMap() {
    assertThatThrownBy(() -> new Partitioner(KEYMAP, 2, List.of(), null))
        .hasMessage("Cannot partition a key map order without its key map");
  }
}
