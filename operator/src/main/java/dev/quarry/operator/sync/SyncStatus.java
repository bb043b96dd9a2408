package dev.quarry.operator.sync;

import dev.quarry.api.datasetsync.DatasetSync;
import dev.quarry.api.datasetsync.DatasetSyncStatus;
import dev.quarry.api.datasetsync.PathSample;
import dev.quarry.api.datasetsync.SyncChanges;
import dev.quarry.api.datasetsync.SyncOperation;
import dev.quarry.api.datasetsync.SyncPhase;
import dev.quarry.operator.jobs.Refusal;
import dev.quarry.operator.jobs.WorkerJson;
import dev.quarry.operator.status.ReadyCondition;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Locale;

/** The status of a DatasetSync for one run: waiting, running, or what the worker's result says. */
final class SyncStatus {
  /** Paths of each kind a status keeps (the worker's --result file has as many). */
  static final int PATHS_SHOWN = 5;

  private final DatasetSync sync;
  private final SyncRun run;
  private final DatasetSyncStatus old;
  private final ReadyCondition conditions;

  SyncStatus(DatasetSync sync, SyncRun run, ReadyCondition conditions) {
    this.sync = sync;
    this.run = run;
    this.old = sync.getStatus();
    this.conditions = conditions;
  }

  DatasetSyncStatus waiting(String holder) {
    return progress(SyncPhase.Pending, null, "WaitingForVolume", "Waiting for " + holder + " to finish: runs on"
        + " volume " + sync.getSpec().volume().claimName() + " never overlap");
  }

  DatasetSyncStatus running(String startTime) {
    return progress(SyncPhase.Running, startTime, "Running", operation() + " of " + folder() + " against "
        + sync.getSpec().remote() + " is running");
  }

  DatasetSyncStatus failed(String startTime, String message) {
    return new DatasetSyncStatus(run.generation(), run.trigger(), SyncPhase.Failed, sync.getSpec().operation(),
        null, null, null, null, null, null, null, null, null, null, startTime, conditions.now(),
        conditions.ready(previous(), false, operation() + "Failed", "Cannot " + operation().toLowerCase(Locale.ROOT)
            + " " + folder() + ": " + message, run.generation()));
  }

  /** A run that never starts: its spec is refused, and no worker runs it. */
  DatasetSyncStatus refused(Refusal refusal) {
    return new DatasetSyncStatus(run.generation(), run.trigger(), SyncPhase.Failed, sync.getSpec().operation(),
        null, null, null, null, null, null, null, null, null, null, null, conditions.now(),
        conditions.ready(previous(), false, refusal.reason(), "Cannot " + operation().toLowerCase(Locale.ROOT)
            + " " + folder() + ": " + refusal.message(), run.generation()));
  }

  DatasetSyncStatus succeeded(SyncReport report, String startTime, String completionTime) {
    String message = report == null
        ? operation() + " succeeded, but its result was not readable (a result over 4 KiB is cut by Kubernetes)"
        : summary(report);
    return new DatasetSyncStatus(run.generation(), run.trigger(), SyncPhase.Succeeded, sync.getSpec().operation(),
        report == null ? null : report.version(), report == null ? null : report.files(),
        report == null ? null : report.bytes(), report == null ? null : report.missingLocal(),
        report == null ? null : report.missingRemote(), report == null ? null : report.transferred(),
        report == null ? null : report.unreachable(), report == null ? null : report.requests(),
        report == null ? null : report.strategy(), report == null ? null : bounded(report.changes()),
        report != null && report.startTime() != null ? report.startTime() : startTime,
        report != null && report.endTime() != null ? report.endTime() : completionTime,
        conditions.ready(previous(), true, "Succeeded", message, run.generation()));
  }

  private String summary(SyncReport report) {
    StringBuilder text = new StringBuilder(operation()).append(" succeeded: ");
    text.append(report.files() == null ? "" : report.files() + " files");
    if (report.version() != null) {
      text.append(", version ").append(report.version());
    }
    if (report.transferred() != null) {
      text.append(", ").append(report.transferred().objects()).append(" objects ")
          .append(sync.getSpec().operation().name().equals("Gc") ? "deleted" : "transferred");
    }
    if (report.missingRemote() != null && report.missingRemote().objects() > 0) {
      text.append(", ").append(report.missingRemote().objects()).append(" objects missing on the remote");
    }
    if (report.missingLocal() != null && report.missingLocal().objects() > 0) {
      text.append(", ").append(report.missingLocal().objects()).append(" files missing locally");
    }
    if (sync.getSpec().operation() == SyncOperation.Push && report.ref() != null && report.version() != null) {
      // Every push that succeeds moves its ref and appends to the ref's log: say so, where to read it.
      String ref = WorkerJson.bounded(report.ref());
      text.append("; ref ").append(ref).append(" now names it, and its ref log has the entry by ")
          .append(SyncJobs.author(sync)).append(" (quarry sync log ").append(ref).append(")");
    }
    if (report.warnings() != null && !report.warnings().isEmpty()) {
      text.append("; ").append(report.warnings().size()).append(" warnings, first: ")
          .append(WorkerJson.bounded(report.warnings().get(0)));
    }
    return text.toString();
  }

  /** While a run waits or runs, the last run's results stay visible; only the phase and condition move. */
  private DatasetSyncStatus progress(SyncPhase phase, String startTime, String reason, String message) {
    DatasetSyncStatus last = old == null ? new DatasetSyncStatus(null, null, null, null, null, null, null, null,
        null, null, null, null, null, null, null, null, null) : old;
    return new DatasetSyncStatus(run.generation(), run.trigger(), phase, sync.getSpec().operation(), last.version(),
        last.files(), last.bytes(), last.missingLocal(), last.missingRemote(), last.transferred(),
        last.unreachable(), last.requests(), last.strategy(), last.changes(), startTime, null,
        conditions.ready(previous(), false, reason, message, run.generation()));
  }

  /**
   * The worker's paths as the status may carry them: at most {@link #PATHS_SHOWN} of each kind, each made printable
   * and cut ({@link WorkerJson#bounded}), whatever the worker sent.
   */
  private static SyncChanges bounded(SyncChanges changes) {
    if (changes == null) {
      return null;
    }
    return new SyncChanges(bounded(changes.added()), bounded(changes.modified()), bounded(changes.deleted()),
        bounded(changes.notOnRemote()));
  }

  private static PathSample bounded(PathSample sample) {
    if (sample == null) {
      return null;
    }
    List<String> paths = sample.paths() == null ? List.of() : sample.paths().stream().limit(PATHS_SHOWN)
        .map(WorkerJson::bounded).toList();
    return new PathSample(Math.max(sample.count(), paths.size()), paths);
  }

  private List<Condition> previous() {
    return old == null ? null : old.conditions();
  }

  private String operation() {
    return sync.getSpec().operation().name();
  }

  private String folder() {
    String path = sync.getSpec().volume().path();
    return "volume " + sync.getSpec().volume().claimName() + (path == null || path.isEmpty() ? "" : "/" + path);
  }
}
