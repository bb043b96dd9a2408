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
    return Keymap.parse(KEYMAP.keymap().inline(), "\t", OutputLocation.of("/data/out/x-{0..}.tar"), null, Policy.ABORT,
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
  void noneSplitsTheInputListIntoSharesAndSendsEachKeyToTheStepOfItsHash() {
    Partitioner partitioner = new Partitioner(new SortSpec.Order(OrderKind.NONE, null, null, null, null), 3, List.of(),
        null, 8);
    assertThat(partitioner.spreads()).isTrue();
    assertThat(java.util.stream.IntStream.range(0, 8).map(shard -> partitioner.partitionOf(
        new RecordEntry("k", shard, 0, false, List.of(), 1, null)))).containsExactly(0, 0, 0, 1, 1, 1, 2, 2);
    // Copies of a key in any shards go to one step; keys spread over the steps.
    assertThat(partitioner.stepOf(new RecordEntry("img/a1", 0, 4, false, List.of(), 1, null)))
        .isEqualTo(partitioner.stepOf(new RecordEntry("img/a1", 7, 0, false, List.of(), 1, null)));
    assertThat(java.util.stream.IntStream.range(0, 300).map(i -> partitioner.stepOf(entry("img/" + i))).distinct())
        .hasSize(3);
  }

  @Test
  void contentSplitsByContentKeyThenKeyInTheOrdersDirectionAndRecordsWithoutOneGoLast() {
    SortSpec.Order descending = new SortSpec.Order(OrderKind.CONTENT, true, null,
        new SortSpec.ContentKey("score", SortSpec.ContentType.FLOAT), null);
    // Splitters as extract writes them: content key 2.5 then key "m", content key -1.0 then key "b".
    List<String> splitters = List.of(Partitioner.contentSplitter(new RecordEntry("m", 0, 0, false, List.of(), 0, 2.5)),
        Partitioner.contentSplitter(new RecordEntry("b", 0, 0, false, List.of(), 0, -1.0)));
    assertThat(splitters).containsExactly("3:2.5m", "4:-1.0b");
    Partitioner partitioner = new Partitioner(descending, 3, splitters, null, 8);
    assertThat(partitioner.spreads()).isTrue();
    assertThat(List.of(entry("z", 9.0), entry("a", 2.5), entry("m", 2.5), entry("z", 2.5), entry("a", 0.0),
        entry("a", -1.0), entry("b", -1.0), entry("a", -7.0), entry("a", null)))
        .extracting(partitioner::partitionOf).containsExactly(0, 0, 1, 1, 1, 1, 2, 2, 2);
  }

  private static RecordEntry entry(String key, Double content) {
    return new RecordEntry(key, 0, 0, false, List.of(), 1, content);
  }

  @Test
  void aKeyMapOrderNeedsItsKeyMap() {
    assertThatThrownBy(() -> new Partitioner(KEYMAP, 2, List.of(), null))
        .hasMessage("Cannot partition a key map order without its key map");
  }
}
