package dev.quarry.core.sync.remote;

import dev.quarry.core.sync.cas.ChunkIndex;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The names wanted directly in a folder: some exactly, and every name that starts with one of some prefixes. Names
 * starting with a prefix are one range in name order, so in a chunked folder they lie in a run of consecutive chunks:
 * {@link #byChunk} picks the chunks that can hold a wanted name, by binary search.
 */
public record ChildNames(Set<String> exact, Set<String> prefixes) {
  public ChildNames {
    exact = Set.copyOf(exact);
    prefixes = Set.copyOf(prefixes);
  }

  public static ChildNames exactly(Set<String> names) {
    return new ChildNames(names, Set.of());
  }

  public boolean holds(String name) {
    return exact.contains(name) || prefixes.stream().anyMatch(name::startsWith);
  }

  /**
   * The chunks of {@code index} that can hold a wanted name, each with the names it can hold. A prefix's range starts
   * in the chunk whose range holds the prefix itself and goes on through every later chunk whose first name starts
   * with it.
   */
  Map<Integer, ChildNames> byChunk(ChunkIndex index) {
    record Wanted(Set<String> exact, Set<String> prefixes) {}
    Map<Integer, Wanted> byChunk = new TreeMap<>();
    java.util.function.IntFunction<Wanted> at =
        place -> byChunk.computeIfAbsent(place, p -> new Wanted(new HashSet<>(), new HashSet<>()));
    for (String name : exact) {
      int place = index.chunkOf(name);
      if (place >= 0) {
        at.apply(place).exact().add(name);
      }
    }
    List<ChunkIndex.Chunk> chunks = index.chunks();
    for (String prefix : prefixes) {
      int place = index.chunkOf(prefix);
      if (place >= 0) {
        at.apply(place).prefixes().add(prefix);
      }
      for (int i = place + 1; i < chunks.size() && chunks.get(i).first().startsWith(prefix); i++) {
        at.apply(i).prefixes().add(prefix);
      }
    }
    Map<Integer, ChildNames> names = new TreeMap<>();
    byChunk.forEach((place, wanted) -> names.put(place, new ChildNames(wanted.exact(), wanted.prefixes())));
    return names;
  }
}
