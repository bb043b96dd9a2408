package dev.quarry.operator.sync;

import dev.quarry.api.common.Amount;
import dev.quarry.api.datasetsync.DatasetSync;
import dev.quarry.api.datasetsync.DatasetSyncStatus;
import dev.quarry.api.datasetsync.SyncOperation;
import dev.quarry.api.datasetsync.SyncPhase;
import dev.quarry.operator.status.KindMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Set;

/**
 * DatasetSync metrics: the kind's ({@link KindMetrics}) and what succeeded pushes and pulls moved, as their status
 * reports it ({@code quarry_sync_bytes_total{operation}}, {@code quarry_sync_objects_total{operation}}).
 */
final class SyncMetrics {
  private final KindMetrics<DatasetSync, DatasetSyncStatus, SyncPhase> kind;
  private final MeterRegistry registry;

  SyncMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.kind = new KindMetrics<>(registry, "DatasetSync", SyncPhase.class, DatasetSyncStatus::phase,
        DatasetSyncStatus::startTime, DatasetSyncStatus::completionTime, Set.of(SyncPhase.Succeeded, SyncPhase.Failed));
    for (SyncOperation operation : new SyncOperation[] {SyncOperation.Push, SyncOperation.Pull}) {
      bytes(operation);
      objects(operation);
    }
  }

  KindMetrics<DatasetSync, DatasetSyncStatus, SyncPhase> kind() {
    return kind;
  }

  /** Records a status the operator has just written over {@code before}. */
  void changed(DatasetSyncStatus before, DatasetSyncStatus after) {
    boolean finished = kind.changed(before, after);
    boolean moved = after.operation() == SyncOperation.Push || after.operation() == SyncOperation.Pull;
    if (finished && moved && after.phase() == SyncPhase.Succeeded && after.transferred() != null) {
      Amount transferred = after.transferred();
      bytes(after.operation()).increment(transferred.bytes());
      objects(after.operation()).increment(transferred.objects());
    }
  }

  private Counter bytes(SyncOperation operation) {
    return Counter.builder("quarry_sync_bytes").baseUnit("bytes")
        .description("Bytes uploaded by pushes and downloaded by pulls that succeeded")
        .tags("operation", operation.name()).register(registry);
  }

  private Counter objects(SyncOperation operation) {
    return Counter.builder("quarry_sync_objects")
        .description("Objects uploaded by pushes and downloaded by pulls that succeeded")
        .tags("operation", operation.name()).register(registry);
  }
}
