package dev.quarry.operator.sync;

import dev.quarry.api.common.Patterns;
import dev.quarry.api.datasetsync.DatasetSync;
import dev.quarry.api.datasetsync.DatasetSyncSpec;
import dev.quarry.api.datasetsync.GcOptions;
import dev.quarry.api.datasetsync.PullOptions;
import dev.quarry.operator.jobs.ChildNames;
import dev.quarry.operator.jobs.Ownership;
import dev.quarry.operator.jobs.Refusal;
import dev.quarry.operator.jobs.WorkerLabels;
import dev.quarry.operator.jobs.WorkerPods;
import dev.quarry.operator.jobs.WorkerSettings;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The Job of one DatasetSync run: the folder {@code spec.volume.path} of the volume mounted (as a subPath, so the
 * worker sees nothing else of the volume, and the kubelet refuses a path that leaves it, symlinks included),
 * {@code quarry sync <operation>} on it.
 */
final class SyncJobs {
  /** The label naming the DatasetSync on its Jobs and pods. */
  static final String OWNER_LABEL = "quarry.dev/datasetsync";
  /** The label naming the volume (PVC) a run uses, so runs on one volume can be found and kept apart. */
  static final String CLAIM_LABEL = "quarry.dev/claim";
  private static final String VOLUME_ROOT = "/data";
  /** Gc reads no folder: its remote index lives in the pod's scratch space. */
  private static final String GC_STATE = "/tmp/quarry-gc";
  private static final int RETRIES = 2;

  private final WorkerPods pods;
  private final WorkerSettings settings;

  SyncJobs(WorkerSettings settings) {
    this.settings = settings;
    this.pods = new WorkerPods(settings);
  }

  Job job(DatasetSync sync, SyncRun run) {
    DatasetSyncSpec spec = sync.getSpec();
    Map<String, String> labels = WorkerLabels.of(OWNER_LABEL, sync, "worker",
        spec.operation().name().toLowerCase(Locale.ROOT));
    labels.put(CLAIM_LABEL, claimLabel(spec.volume().claimName()));
    ObjectMeta metadata = new ObjectMetaBuilder().withName(run.jobName(sync))
        .withNamespace(sync.getMetadata().getNamespace()).withLabels(labels)
        .withOwnerReferences(Ownership.controllerOf(sync)).build();
    String path = spec.volume().path();
    PodSpec podSpec = pods.spec(spec.store(), args(spec, author(sync)), spec.resources(), spec,
            List.of(new VolumeMountBuilder().withName("data").withMountPath(VOLUME_ROOT)
                .withSubPath(path == null || path.isEmpty() ? null : path).build()))
        .addToVolumes(new VolumeBuilder().withName("data").withNewPersistentVolumeClaim()
            .withClaimName(spec.volume().claimName()).endPersistentVolumeClaim().build())
        .build();
    return new JobBuilder()
        .withMetadata(metadata)
        .withNewSpec()
        .withBackoffLimit(RETRIES)
        .withTtlSecondsAfterFinished(settings.finishedJobTtlSeconds())
        .withNewTemplate().withNewMetadata().withLabels(labels).endMetadata().withSpec(podSpec).endTemplate()
        .endSpec()
        .build();
  }

  /** Who a push is by, as the ref log records it: {@code datasetsync/<namespace>/<name>}. */
  static String author(DatasetSync sync) {
    return "datasetsync/" + sync.getMetadata().getNamespace() + "/" + sync.getMetadata().getName();
  }

  /**
   * The command line of the run, as {@code quarry sync --help} documents it. A push never gets --allow-empty: an
   * empty or missing folder fails the run rather than moving the ref.
   */
  static List<String> args(DatasetSyncSpec spec, String author) {
    String folder = VOLUME_ROOT;
    String ref = spec.ref() == null ? "latest" : spec.ref();
    List<String> args = new ArrayList<>(List.of("sync", spec.operation().name().toLowerCase(Locale.ROOT)));
    switch (spec.operation()) {
      case Status -> args.addAll(List.of(folder, "--ref", ref));
      case Push -> args.addAll(List.of(folder, "--ref", ref, "--by", author));
      case Pull -> {
        PullOptions pull = spec.pull();
        args.addAll(List.of(folder, "--version", pull != null && pull.version() != null ? pull.version() : ref));
        if (pull != null && pull.include() != null) {
          pull.include().forEach(glob -> args.addAll(List.of("--include", glob)));
        }
        if (pull != null && Boolean.TRUE.equals(pull.deleteExtra())) {
          args.add("--delete-extra");
        }
        if (pull != null && Boolean.TRUE.equals(pull.force())) {
          args.add("--force");
        }
      }
      case Gc -> {
        GcOptions gc = spec.gc();
        args.addAll(List.of("--state-dir", GC_STATE, "--grace-period",
            gc != null && gc.gracePeriod() != null ? gc.gracePeriod() : "24h", "--retention",
            gc != null && gc.retention() != null ? gc.retention() : "720h"));
        if (gc != null && Boolean.FALSE.equals(gc.dryRun())) {
          args.add("--delete");
        }
      }
    }
    args.addAll(List.of("--remote", spec.remote(), "--requests-in-flight",
        String.valueOf(spec.requestsInFlight() == null ? 64 : spec.requestsInFlight()),
        "--result", WorkerPods.RESULT_FILE));
    return args;
  }

  /**
   * Why the run must not start: a volume path that leaves the volume (the schema refuses it; an older CRD did not),
   * or a store endpoint the admin does not allow.
   */
  static Optional<Refusal> refusal(DatasetSyncSpec spec, WorkerSettings settings) {
    String path = spec.volume().path();
    if (path != null && !path.isEmpty() && !path.matches(Patterns.NORMALIZED_RELATIVE_PATH)) {
      return Optional.of(new Refusal("VolumePathNotAllowed", "Invalid spec.volume.path: " + path + " (must be a"
          + " folder inside the volume: relative, without '.', '..' or empty segments)"));
    }
    return Refusal.ofStore(spec.store(), settings.endpoints());
  }

  /** A label value for a PVC name: the name itself, or a hash when it is longer than a label allows. */
  static String claimLabel(String claim) {
    return claim.length() <= 63 ? claim : "h-" + ChildNames.hash(claim);
  }
}
