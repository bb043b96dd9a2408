package dev.quarry.operator.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.common.SecretKeys;
import dev.quarry.api.datasetsync.DatasetSync;
import dev.quarry.api.datasetsync.DatasetSyncSpec;
import dev.quarry.api.datasetsync.GcOptions;
import dev.quarry.api.datasetsync.PullOptions;
import dev.quarry.api.datasetsync.SyncOperation;
import dev.quarry.api.datasetsync.VolumeSource;
import dev.quarry.operator.jobs.Refusal;
import dev.quarry.operator.jobs.WorkerPodDefaults;
import dev.quarry.operator.jobs.WorkerSettings;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The command lines of sync runs, as {@code quarry sync <operation> --help} documents them. */
class SyncJobsTest {
  private static final ObjectStore STORE = new ObjectStore(null, "us-east-1", true, null);
  private static final WorkerSettings SETTINGS = new WorkerSettings("quarry-worker:1", "IfNotPresent", null, 60,
      new EndpointAllowlist(List.of("http://minio.storage:9000")), false, WorkerPodDefaults.BUILT_IN);

  @Test
  void aPartialPullNamesTheVersionAndEachGlob() {
    DatasetSyncSpec spec = new DatasetSyncSpec(new VolumeSource("coco", ""), "s3://datasets/cas/coco", STORE,
        SyncOperation.Pull, "latest", new PullOptions("v2", List.of("val2017/**", "*.json"), true, null), null, 8, null,
        null, null, null, null);
    assertThat(SyncJobs.args(spec, "datasetsync/ml/coco")).containsExactly("sync", "pull", "/data", "--version", "v2",
        "--include", "val2017/**", "--include", "*.json", "--delete-extra", "--remote", "s3://datasets/cas/coco",
        "--requests-in-flight", "8", "--result", "/dev/termination-log");
  }

  /** Pull keeps local edits on the volume unless the spec says force: then it passes --force. */
  @Test
  void aPullReplacesLocalEditsOnlyWhenForced() {
    DatasetSyncSpec kept = new DatasetSyncSpec(new VolumeSource("coco", ""), "s3://datasets/cas/coco", STORE,
        SyncOperation.Pull, "latest", new PullOptions(null, null, null, false), null, null, null,
        null, null, null, null);
    assertThat(SyncJobs.args(kept, "datasetsync/ml/coco")).doesNotContain("--force");
    DatasetSyncSpec byDefault = new DatasetSyncSpec(new VolumeSource("coco", ""), "s3://datasets/cas/coco", STORE,
        SyncOperation.Pull, "latest", null, null, null, null, null, null, null, null);
    assertThat(SyncJobs.args(byDefault, "datasetsync/ml/coco")).doesNotContain("--force");
    DatasetSyncSpec forced = new DatasetSyncSpec(new VolumeSource("coco", ""), "s3://datasets/cas/coco", STORE,
        SyncOperation.Pull, "latest", new PullOptions(null, null, null, true), null, null, null,
        null, null, null, null);
    assertThat(SyncJobs.args(forced, "datasetsync/ml/coco")).containsExactly("sync", "pull", "/data", "--version",
        "latest", "--force", "--remote", "s3://datasets/cas/coco", "--requests-in-flight", "64", "--result",
        "/dev/termination-log");
  }

  @Test
  void gcIsADryRunUnlessToldOtherwise() {
    DatasetSyncSpec dryRun = new DatasetSyncSpec(new VolumeSource("coco", "x"), "s3://datasets/cas", STORE,
        SyncOperation.Gc, null, null, new GcOptions(null, "48h", "2h"), null, null, null, null, null, null);
    assertThat(SyncJobs.args(dryRun, "datasetsync/ml/coco")).containsSequence("--grace-period", "48h", "--retention",
        "2h").doesNotContain("--delete");
    DatasetSyncSpec delete = new DatasetSyncSpec(new VolumeSource("coco", "x"), "s3://datasets/cas", STORE,
        SyncOperation.Gc, null, null, new GcOptions(false, null, null), null, null, null, null, null, null);
    assertThat(SyncJobs.args(delete, "datasetsync/ml/coco")).contains("--delete")
        .containsSequence("--grace-period", "24h", "--retention", "720h");
  }

  /** The ref log names the resource, and a push never gets --allow-empty: an empty folder fails the run. */
  @Test
  void aPushIsByTheResourceAndNeverAllowsAnEmptyFolder() {
    DatasetSyncSpec spec = new DatasetSyncSpec(new VolumeSource("coco", "train"), "s3://datasets/cas/coco", STORE,
        SyncOperation.Push, "latest", null, null, null, null, null, null, null, null);
    assertThat(SyncJobs.args(spec, "datasetsync/ml/coco")).containsExactly("sync", "push", "/data", "--ref",
        "latest", "--by", "datasetsync/ml/coco", "--remote", "s3://datasets/cas/coco", "--requests-in-flight", "64",
        "--result", "/dev/termination-log");
  }

  @Test
  void theWorkerMountsOnlyTheVolumesFolderAsASubPath() {
    DatasetSyncSpec spec = new DatasetSyncSpec(new VolumeSource("coco", "datasets/coco"), "s3://datasets/cas", STORE,
        SyncOperation.Push, null, null, null, null, null, null, null, null, null);
    DatasetSync sync = new DatasetSync();
    sync.setMetadata(new ObjectMetaBuilder().withName("coco-push").withNamespace("ml").withGeneration(1L)
        .withUid("u-1").build());
    sync.setSpec(spec);
    Job job = new SyncJobs(SETTINGS).job(sync, SyncRun.of(sync));
    assertThat(job.getSpec().getTemplate().getSpec().getContainers().get(0).getVolumeMounts())
        .filteredOn(mount -> mount.getName().equals("data")).singleElement()
        .satisfies(mount -> {
          assertThat(mount.getMountPath()).isEqualTo("/data");
          assertThat(mount.getSubPath()).isEqualTo("datasets/coco");
        });
    assertThat(SyncJobs.args(spec, "datasetsync/ml/coco-push")).containsSequence("sync", "push", "/data");
    assertThat(SyncJobs.refusal(spec, SETTINGS)).isEmpty();
  }

  @Test
  void aPathOutOfTheVolumeOrAnEndpointTheAdminDoesNotAllowStartsNoWorker() {
    DatasetSyncSpec escaping = new DatasetSyncSpec(new VolumeSource("coco", "../../etc"), "s3://datasets/cas",
        STORE, SyncOperation.Push, null, null, null, null, null, null, null, null, null);
    assertThat(SyncJobs.refusal(escaping, SETTINGS)).contains(new Refusal("VolumePathNotAllowed",
        "Invalid spec.volume.path: ../../etc (must be a folder inside the volume: relative, without '.', '..' or"
            + " empty segments)"));
    DatasetSyncSpec internal = new DatasetSyncSpec(new VolumeSource("coco", ""), "s3://datasets/cas",
        new ObjectStore("http://169.254.169.254", null, null, null), SyncOperation.Status, null, null, null, null,
        null, null, null, null, null);
    assertThat(SyncJobs.refusal(internal, SETTINGS)).contains(new Refusal("EndpointNotAllowed",
        "Invalid spec.store.endpoint: http://169.254.169.254 (must be one of the endpoints the cluster admin allows:"
            + " http://minio.storage:9000)"));
  }

  @Test
  void aSecretKeyOutsideTheCredentialKeyNamesStartsNoWorker() {
    DatasetSyncSpec spec = new DatasetSyncSpec(new VolumeSource("coco", ""), "s3://datasets/cas",
        new ObjectStore("http://minio.storage:9000", null, null, new SecretKeys("default-token", "token", null)),
        SyncOperation.Status, null, null, null, null, null, null, null, null, null);
    assertThat(SyncJobs.refusal(spec, SETTINGS)).contains(new Refusal("SecretKeyNotAllowed",
        "Invalid spec.store.credentialsSecret.accessKeyIdKey: token (must be one of AWS_ACCESS_KEY_ID, access-key-id,"
            + " accessKeyId, access_key_id, accesskey)"));
  }

  @Test
  void aLongClaimNameBecomesAValidLabelValue() {
    assertThat(SyncJobs.claimLabel("data")).isEqualTo("data");
    assertThat(SyncJobs.claimLabel("d".repeat(100))).hasSizeLessThanOrEqualTo(63).startsWith("h-");
  }
}
