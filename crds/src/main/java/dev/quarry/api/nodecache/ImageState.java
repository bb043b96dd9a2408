package dev.quarry.api.nodecache;

/** Where one image is on one node. */
public enum ImageState {
  /** Not mounted yet: the agent is fetching or mounting it. */
  Pending,
  /** Mounted from its source; reads go to the source. */
  Source,
  /** Mounted from its source while a local copy is being made. */
  Copying,
  /** The local copy is mounted over the source; new opens read the local disk. */
  Cached,
  /** Cannot be mounted or copied; the message says why. */
  Failed
}
