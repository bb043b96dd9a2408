package dev.quarry.operator.sync;

import dev.quarry.api.datasetsync.DatasetSync;
import dev.quarry.api.datasetsync.DatasetSyncStatus;
import dev.quarry.api.datasetsync.SyncPhase;
import dev.quarry.operator.jobs.ChildNames;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One run of a DatasetSync: what asks for it (the spec's generation and the trigger annotation's value) and the name
 * of its Job. A run happens once: re-applying the same spec asks for the same run, which is already done.
 */
record SyncRun(long generation, String trigger) {
  static SyncRun of(DatasetSync sync) {
    Map<String, String> annotations = sync.getMetadata().getAnnotations();
    return new SyncRun(sync.getMetadata().getGeneration() == null ? 1 : sync.getMetadata().getGeneration(),
        annotations == null ? null : annotations.get(DatasetSync.TRIGGER_ANNOTATION));
  }

  /** {@code <name>-<operation>-g<generation>}, plus a hash of the trigger when there is one. */
  String jobName(DatasetSync sync) {
    String suffix = sync.getSpec().operation().name().toLowerCase(Locale.ROOT) + "-g" + generation
        + (trigger == null ? "" : "-" + ChildNames.hash(trigger));
    return ChildNames.of(sync.getMetadata().getName(), suffix);
  }

  /** Whether {@code status} already reports this run as finished. */
  boolean finishedIn(DatasetSyncStatus status) {
    return status != null && status.observedGeneration() != null && status.observedGeneration() == generation
        && Objects.equals(status.observedTrigger(), trigger)
        && (status.phase() == SyncPhase.Succeeded || status.phase() == SyncPhase.Failed);
  }
}
