package dev.quarry.core.cache.agent;

/** Where one image is on this node. */
public enum ImageState {
  /** Not mounted yet. */
  PENDING,
  /** Mounted from its source. */
  SOURCE,
  /** Mounted from its source while a local copy is made. */
  COPYING,
  /** The local copy is mounted over the source. */
  CACHED,
  /** Cannot be mounted or copied; see the message. */
  FAILED
}
