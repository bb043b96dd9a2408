package dev.quarry.api.nodecache;

/** How a NodeCache is doing across its nodes; shown as PHASE. */
public enum CachePhase {
  /** The agents are starting or have not yet reported. */
  Pending,
  /** Every selected node has every image mounted. */
  Ready,
  /** Some node cannot mount some image; see the conditions and the per-node reports. */
  Degraded
}
