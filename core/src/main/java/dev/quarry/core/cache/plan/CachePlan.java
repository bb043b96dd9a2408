package dev.quarry.core.cache.plan;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The set of images to keep locally.
 *
 * @param exact whether the choice among images chosen by traffic is proven optimal
 * @param maxShortfall when not proven optimal, the most value the choice can fall short of the optimum by, as a
 *     fraction of the optimum's upper bound (the search ran out of budget; zero when exact)
 */
public record CachePlan(
    List<ImageChoice> choices, long capacityBytes, long plannedBytes, boolean exact, double maxShortfall, long nanos) {
  /** Choices by image name. */
  public Map<String, ImageChoice> byName() {
    return choices.stream().collect(Collectors.toMap(ImageChoice::name, Function.identity()));
  }
}
