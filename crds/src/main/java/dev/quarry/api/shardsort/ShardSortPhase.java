package dev.quarry.api.shardsort;

/** Where a ShardSortJob is in its life; derived from its conditions and worker Jobs, shown as PHASE. */
public enum ShardSortPhase {
  Pending,
  Extracting,
  Planning,
  Creating,
  Succeeded,
  Failed,
  Aborted
}
