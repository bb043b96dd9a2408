package dev.quarry.core.sync;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.quarry.core.text.Printable;
import java.util.List;

/**
 * Paths, perhaps cut short: {@code count} is how many there are, {@code paths} the first of them in order (all of
 * them unless cut by {@link #first}).
 */
public record PathList(long count, List<String> paths) {
  public static final PathList NONE = new PathList(0, List.of());

  public PathList {
    paths = List.copyOf(paths);
    if (count < paths.size()) {
      throw new IllegalArgumentException("Invalid path count: " + count + " (must be at least the " + paths.size()
          + " paths listed)");
    }
  }

  /** All of {@code paths}, sorted. */
  public static PathList of(List<String> paths) {
    return new PathList(paths.size(), paths.stream().sorted().toList());
  }

  @JsonIgnore
  public boolean isEmpty() {
    return count == 0;
  }

  /** The same count, with at most {@code limit} paths. */
  public PathList first(int limit) {
    return paths.size() <= limit ? this : new PathList(count, paths.subList(0, limit));
  }

  /**
   * The same count, with at most {@code limit} paths, each made printable and cut to {@code maxBytes} bytes of UTF-8
   * ({@link Printable#within}): for places of bounded size, such as a Kubernetes termination message.
   */
  public PathList sample(int limit, int maxBytes) {
    return new PathList(count, paths.stream().limit(limit).map(path -> Printable.within(path, maxBytes)).toList());
  }

  /** How many paths are counted but not listed. */
  public long notListed() {
    return count - paths.size();
  }
}
