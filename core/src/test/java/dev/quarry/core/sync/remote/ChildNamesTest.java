package dev.quarry.core.sync.remote;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.sync.cas.ChunkIndex;
import dev.quarry.core.sync.cas.Digest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ChildNamesTest {
  /** An index of chunks starting at a, img-1, img-3, img-5 and k. */
  private static final ChunkIndex INDEX = index("a", "img-1", "img-3", "img-5", "k");

  @Test
  void aPrefixTakesTheChunkThatHoldsItAndEveryLaterOneThatStartsWithIt() {
    assertThat(chunks(new ChildNames(Set.of(), Set.of("img-")))).containsExactly(0, 1, 2, 3);
    assertThat(chunks(new ChildNames(Set.of(), Set.of("img-4")))).containsExactly(2);
    assertThat(chunks(new ChildNames(Set.of(), Set.of("img-3")))).containsExactly(2);
    assertThat(chunks(new ChildNames(Set.of(), Set.of("im")))).containsExactly(0, 1, 2, 3);
    assertThat(chunks(new ChildNames(Set.of(), Set.of("0")))).as("before the first chunk").isEmpty();
    assertThat(chunks(new ChildNames(Set.of(), Set.of("a")))).containsExactly(0);
    assertThat(chunks(new ChildNames(Set.of(), Set.of("z")))).containsExactly(4);
  }

  @Test
  void eachChunkGetsTheNamesItCanHold() {
    Map<Integer, ChildNames> byChunk = new ChildNames(Set.of("k2", "b", "0"), Set.of("img-4")).byChunk(INDEX);
    assertThat(byChunk).containsExactly(Map.entry(0, ChildNames.exactly(Set.of("b"))),
        Map.entry(2, new ChildNames(Set.of(), Set.of("img-4"))), Map.entry(4, ChildNames.exactly(Set.of("k2"))));
    assertThat(new ChildNames(Set.of("x"), Set.of("img-")).holds("img-9")).isTrue();
    assertThat(new ChildNames(Set.of("x"), Set.of("img-")).holds("im")).isFalse();
  }

  private static List<Integer> chunks(ChildNames names) {
    return names.byChunk(INDEX).keySet().stream().sorted().toList();
  }

  private static ChunkIndex index(String... firsts) {
    String chunks = java.util.Arrays.stream(firsts).map(first -> "{\"first\":\"" + first + "\",\"sha256\":\""
        + Digest.of(first.getBytes(StandardCharsets.UTF_8)).hex() + "\",\"size\":" + first.length()
        + ",\"entries\":1,\"files\":1,\"bytes\":0}").collect(Collectors.joining(","));
    return ChunkIndex.decode(("{\"format\":\"quarry-tree-index/1\",\"height\":1,\"chunks\":[" + chunks + "]}")
        .getBytes(StandardCharsets.UTF_8));
  }
}
