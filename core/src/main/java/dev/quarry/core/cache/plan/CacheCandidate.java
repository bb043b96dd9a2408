package dev.quarry.core.cache.plan;

/**
 * One image as the planner sees it.
 *
 * @param sourceBytes bytes read from the image's source over the window
 * @param localBytes bytes read from its local copy over the window: reads the copy saved the source
 * @param cached whether a local copy is in use now (hysteresis favours keeping it)
 * @param localOnly the image has no source a node can mount (it is in S3), so it is served from the cache or not at all
 */
public record CacheCandidate(
    String name, long sizeBytes, long sourceBytes, long localBytes, boolean cached, boolean pinned, int priority,
    boolean localOnly) {

  /** Bytes the image would read from its source without a local copy. */
  public long demandBytes() {
    return sourceBytes + localBytes;
  }

  /** Pinned and S3 images go in before any choice by traffic. */
  public boolean forced() {
    return pinned || localOnly;
  }
}
