package dev.quarry.core.cache.traffic;

/** Which copy of an image a mount reads: the shared source or the node-local copy. */
public enum Layer {
  SOURCE,
  LOCAL
}
