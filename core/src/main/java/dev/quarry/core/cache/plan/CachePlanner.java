package dev.quarry.core.cache.plan;

import dev.quarry.core.units.ByteSize;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Chooses the images to keep on local disk: forced images first (S3 images, then pins, by priority), then an exact
 * 0/1 knapsack over the rest, where an image's value is the bytes it would read from its source in the window and
 * its weight its size. A cached image's value counts {@code hysteresisPercent} more, so a newcomer must be clearly
 * hotter to displace it and the cache does not churn between images of similar traffic.
 */
public final class CachePlanner {
  /** Values are counted in KiB so that sums over thousands of images stay within a long. */
  private static final long VALUE_UNIT = 1024;
  private static final long MAX_UNITS = 1L << 37;

  private final int hysteresisPercent;

  public CachePlanner(int hysteresisPercent) {
    if (hysteresisPercent < 0 || hysteresisPercent > 1000) {
      throw new IllegalArgumentException("Invalid hysteresis: " + hysteresisPercent + "% (must be 0 to 1000)");
    }
    this.hysteresisPercent = hysteresisPercent;
  }

  /** The plan for {@code candidates} within {@code capacityBytes}. */
  public CachePlan plan(List<CacheCandidate> candidates, long capacityBytes) {
    long start = System.nanoTime();
    Map<String, ImageChoice> choices = new LinkedHashMap<>();
    long room = capacityBytes;
    List<CacheCandidate> forced = candidates.stream()
        .filter(CacheCandidate::forced)
        .sorted(Comparator.comparing((CacheCandidate c) -> !c.localOnly())
            .thenComparing(Comparator.comparingInt(CacheCandidate::priority).reversed())
            .thenComparing(c -> !c.cached())
            .thenComparing(CacheCandidate::name))
        .toList();
    for (CacheCandidate c : forced) {
      String why = c.localOnly() ? "stored in S3, so served from the cache only" : "pinned";
      if (c.sizeBytes() <= room) {
        room -= c.sizeBytes();
        choices.put(c.name(), new ImageChoice(c.name(), true, why));
      } else {
        choices.put(c.name(), new ImageChoice(c.name(), false, why + ", but does not fit: needs "
            + ByteSize.format(c.sizeBytes()) + ", " + ByteSize.format(room) + " left after images placed first"));
      }
    }
    List<CacheCandidate> open = candidates.stream().filter(c -> !c.forced()).toList();
    List<CacheCandidate> contenders = new ArrayList<>();
    for (CacheCandidate c : open) {
      if (c.demandBytes() < VALUE_UNIT) {
        choices.put(c.name(), new ImageChoice(c.name(), false, "cold: not read in the window"));
      } else if (c.sizeBytes() > room) {
        choices.put(c.name(), new ImageChoice(c.name(), false, "does not fit: " + ByteSize.format(c.sizeBytes())
            + ", " + ByteSize.format(room) + " of cache left for images chosen by traffic"));
      } else {
        contenders.add(c);
      }
    }
    // Ties of measured value go to higher priority: the solver prefers earlier items among equal ratios.
    contenders.sort(Comparator.comparingInt(CacheCandidate::priority).reversed().thenComparing(CacheCandidate::name));
    long[] weights = contenders.stream().mapToLong(CacheCandidate::sizeBytes).toArray();
    long[] values = contenders.stream().mapToLong(this::value).toArray();
    Knapsack.Solution solution = Knapsack.solve(weights, values, room);
    long plannedBytes = capacityBytes - room;
    long chosenDemand = 0;
    for (int i = 0; i < contenders.size(); i++) {
      if (solution.chosen()[i]) {
        plannedBytes += weights[i];
        chosenDemand += contenders.get(i).demandBytes();
      }
    }
    for (int i = 0; i < contenders.size(); i++) {
      CacheCandidate c = contenders.get(i);
      String read = ByteSize.format(c.demandBytes()) + " read in the window (" + percent(rate(c)) + " of its size)";
      choices.put(c.name(), solution.chosen()[i]
          ? new ImageChoice(c.name(), true, "hot: " + read)
          : new ImageChoice(c.name(), false, "outranked: " + read + "; the images chosen by traffic save more"
              + " source reads (" + ByteSize.format(chosenDemand) + ") in the space left"));
    }
    List<ImageChoice> ordered = candidates.stream().map(c -> choices.get(c.name())).toList();
    double shortfall = solution.exact() || solution.upperBound() == 0 ? 0
        : (double) (solution.upperBound() - solution.value()) / solution.upperBound();
    return new CachePlan(ordered, capacityBytes, plannedBytes, solution.exact(), shortfall,
        System.nanoTime() - start);
  }

  private long value(CacheCandidate c) {
    long units = Math.min(c.demandBytes() / VALUE_UNIT, MAX_UNITS);
    return units * (c.cached() ? 100 + hysteresisPercent : 100);
  }

  private static double rate(CacheCandidate c) {
    return (double) c.demandBytes() / c.sizeBytes();
  }

  private static String percent(double ratio) {
    return Math.round(ratio * 100) + "%";
  }
}
