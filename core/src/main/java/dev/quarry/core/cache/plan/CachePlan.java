package dev.quarry.core.cache.plan;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The set of images to keep locally.
 *
 * @param exact whether the choice among unpinned images is proven optimal (false only if the search hit its budget)
 */
public record CachePlan(List<ImageChoice> choices, long capacityBytes, long plannedBytes, boolean exact, long nanos) {
  /** Choices by image name. */
  public Map<String, ImageChoice> byName() {
    return choices.stream().collect(Collectors.toMap(ImageChoice::name, Function.identity()));
  }
}
