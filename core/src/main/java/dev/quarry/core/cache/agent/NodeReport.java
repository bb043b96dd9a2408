package dev.quarry.core.cache.agent;

import java.time.Instant;
import java.util.List;

/**
 * What the agent did in its last pass, for the per-node status and metrics.
 *
 * @param usedBytes cache space in use, counting evicted copies whose space open files still hold
 * @param decisionNanos time the planner took
 */
public record NodeReport(
    Instant time, List<ImageReport> images, long capacityBytes, long usedBytes, long drainingBytes,
    List<Decision> decisions, long decisionNanos) {

  /** Images mounted from their source or a local copy. */
  public int mounted() {
    return (int) images.stream()
        .filter(i -> i.state() == ImageState.SOURCE || i.state() == ImageState.COPYING || i.state() == ImageState.CACHED)
        .count();
  }

  /** Images served from a local copy. */
  public int cached() {
    return (int) images.stream().filter(i -> i.state() == ImageState.CACHED).count();
  }

  public boolean allMounted() {
    return mounted() == images.size();
  }

  public boolean anyFailed() {
    return images.stream().anyMatch(i -> i.state() == ImageState.FAILED);
  }

  public long sourceBytes() {
    return images.stream().mapToLong(ImageReport::sourceBytes).sum();
  }

  public long localBytes() {
    return images.stream().mapToLong(ImageReport::localBytes).sum();
  }
}
