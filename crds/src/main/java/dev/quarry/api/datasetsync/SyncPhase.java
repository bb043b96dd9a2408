package dev.quarry.api.datasetsync;

/** Where the current run of a DatasetSync is; shown as PHASE. */
public enum SyncPhase {
  Pending,
  Running,
  Succeeded,
  Failed
}
