package dev.quarry.api.datasetsync;

/** What one run of a DatasetSync does. */
public enum SyncOperation {
  /** Compare the volume with the remote version and report what is missing on each side. */
  Status,
  /** Upload what the remote lacks, then point the ref at the volume's new root digest. */
  Push,
  /** Materialize a version on the volume, whole or the files the include globs select. */
  Pull,
  /** Delete remote objects no ref or live push lease reaches, older than the grace period. */
  Gc
}
