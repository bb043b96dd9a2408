package dev.quarry.operator.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.datasetsync.DatasetSync;
import dev.quarry.api.datasetsync.DatasetSyncSpec;
import dev.quarry.api.datasetsync.DatasetSyncStatus;
import dev.quarry.api.datasetsync.PathSample;
import dev.quarry.api.datasetsync.SyncOperation;
import dev.quarry.api.datasetsync.VolumeSource;
import dev.quarry.operator.jobs.WorkerJson;
import dev.quarry.operator.status.ReadyCondition;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/** What a Status run's worker result puts into the DatasetSync status. */
class SyncStatusTest {
  /** A DatasetSync named ml/coco of this operation and ref. */
  private static DatasetSync sync(SyncOperation operation, String ref) {
    DatasetSync sync = new DatasetSync();
    sync.setMetadata(new ObjectMetaBuilder().withName("coco").withNamespace("ml").withGeneration(3L).build());
    sync.setSpec(new DatasetSyncSpec(new VolumeSource("coco", ""), "s3://datasets/cas/coco",
        new ObjectStore(null, "us-east-1", true, null), operation, ref, null, null, 8, null, null, null, null, null));
    return sync;
  }

  @Test
  void theChangedPathsAreCountedAndAFewKeptPrintableWhateverTheWorkerSent() {
    DatasetSync sync = sync(SyncOperation.Status, "latest");
    String result = """
        {"operation":"status","version":"sha256:ab","files":9,"changes":{
          "added":{"count":8,"paths":["a","b","c","d","e","f","g","h"]},
          "modified":{"count":1,"paths":["evil\\u001b[2Jname"]},
          "deleted":{"count":1,"paths":["old/"]},
          "notOnRemote":{"count":0,"paths":[]}}}
        """;
    SyncReport report = WorkerJson.parse(result, SyncReport.class).orElseThrow();

    DatasetSyncStatus status = new SyncStatus(sync, SyncRun.of(sync), new ReadyCondition(Clock.systemUTC()))
        .succeeded(report, "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z");

    assertThat(status.changes().added()).isEqualTo(new PathSample(8, java.util.List.of("a", "b", "c", "d", "e")));
    assertThat(status.changes().modified().paths()).singleElement().asString().doesNotContain("\u001b");
    assertThat(status.changes().deleted().paths()).containsExactly("old/");
  }

  @Test
  void aPushSaysWhichRefItMovedAndThatTheRefLogHasTheEntry() {
    DatasetSync sync = sync(SyncOperation.Push, "v2");
    SyncReport report = WorkerJson.parse("""
        {"operation":"push","ref":"v2","version":"sha256:ab","files":9,"transferred":{"objects":3,"bytes":30}}
        """, SyncReport.class).orElseThrow();

    DatasetSyncStatus status = new SyncStatus(sync, SyncRun.of(sync), new ReadyCondition(Clock.systemUTC()))
        .succeeded(report, "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z");

    assertThat(status.conditions().get(0).getMessage()).isEqualTo("Push succeeded: 9 files, version sha256:ab, 3"
        + " objects transferred; ref v2 now names it, and its ref log has the entry by datasetsync/ml/coco (quarry"
        + " sync log v2)");
  }
}
