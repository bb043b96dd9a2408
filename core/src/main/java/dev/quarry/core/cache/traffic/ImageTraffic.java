package dev.quarry.core.cache.traffic;

/** Bytes one image read over the window, from its source and from its local copy. */
public record ImageTraffic(long sourceBytes, long localBytes) {
  public static final ImageTraffic NONE = new ImageTraffic(0, 0);
}
