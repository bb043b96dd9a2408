package dev.quarry.operator.sort;

import dev.quarry.api.shardsort.ShardSortJob;
import dev.quarry.api.shardsort.ShardSortJobSpec;
import dev.quarry.operator.jobs.ChildNames;
import dev.quarry.operator.jobs.Ownership;
import dev.quarry.operator.jobs.WorkerJson;
import dev.quarry.operator.jobs.WorkerLabels;
import dev.quarry.operator.jobs.WorkerPods;
import dev.quarry.operator.jobs.WorkerSettings;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The objects a ShardSortJob runs on: a ConfigMap with the spec the workers read, one indexed Job per step, and the
 * Job that removes the scratch data. Every name comes from here.
 */
final class SortJobs {
  /** The label naming the ShardSortJob on each of its children. */
  static final String OWNER_LABEL = "quarry.dev/shardsortjob";
  static final String CLEAN_ROLE = "clean";
  private static final String SPEC_DIR = "/etc/quarry";
  private static final String SPEC_FILE = "spec.json";
  /** A cleanup Job outlives its resource, so it is never owned by it; it deletes itself this long after finishing. */
  private static final int CLEAN_TTL_SECONDS = 300;
  private static final int CLEAN_RETRIES = 3;
  private static final int DEFAULT_RETRIES_PER_INDEX = 3;

  private final WorkerPods pods;
  private final WorkerSettings settings;

  SortJobs(WorkerSettings settings) {
    this.settings = settings;
    this.pods = new WorkerPods(settings);
  }

  static String specName(ShardSortJob job) {
    return ChildNames.of(job.getMetadata().getName(), "spec");
  }

  static String jobName(ShardSortJob job, SortStep step) {
    return ChildNames.of(job.getMetadata().getName(), step.command());
  }

  static String cleanName(ShardSortJob job) {
    return ChildNames.of(job.getMetadata().getName(), CLEAN_ROLE);
  }

  /**
   * The spec as the workers read it: the resource's spec with the scratch prefix resolved, without abort (which is
   * the operator's business, and the only field that may change once the job started).
   */
  ConfigMap specConfigMap(ShardSortJob job) {
    ShardSortJobSpec spec = job.getSpec();
    ShardSortJobSpec resolved = new ShardSortJobSpec(spec.store(), spec.input(), spec.output(), spec.order(),
        spec.policies(), spec.workers(), ScratchPrefix.of(job), spec.dryRun(), spec.overwrite(), null);
    return new ConfigMapBuilder()
        .withMetadata(metadata(job, specName(job), "spec", true))
        .withImmutable(true)
        .withData(Map.of(SPEC_FILE, WorkerJson.write(resolved)))
        .build();
  }

  /** The indexed Job of one step: each index runs its share, retried alone up to retriesPerIndex times. */
  Job stepJob(ShardSortJob job, SortStep step) {
    ShardSortJobSpec spec = job.getSpec();
    int workers = step.workers(spec);
    List<String> args = new ArrayList<>(List.of("sort", step.command(), "--spec", SPEC_DIR + "/" + SPEC_FILE,
        "--result", WorkerPods.RESULT_FILE));
    if (step == SortStep.EXTRACT || step == SortStep.PARTITION || step == SortStep.CREATE) {
      // The Job controller sets JOB_COMPLETION_INDEX in every pod; the kubelet expands it in the arguments.
      args.addAll(List.of("--index", "$(JOB_COMPLETION_INDEX)", "--count", String.valueOf(workers)));
    }
    if (step == SortStep.EXTRACT && SortStep.partitions(spec) > 1) {
      args.addAll(List.of("--partitions", String.valueOf(SortStep.partitions(spec))));
    }
    if (step == SortStep.PARTITION || step == SortStep.PLAN) {
      args.addAll(List.of("--extract-count", String.valueOf(SortStep.EXTRACT.workers(spec))));
    }
    if (step.thenFlag(spec) != null) {
      args.add(step.thenFlag(spec));
    }
    PodSpec podSpec = withSpec(job, withHeap(spec, pods.spec(spec.store(), args,
        spec.workers() == null ? null : spec.workers().resources(), spec.workers(), List.of(specMount()))), false);
    Integer retries = spec.workers() == null || spec.workers().retriesPerIndex() == null ? DEFAULT_RETRIES_PER_INDEX
        : spec.workers().retriesPerIndex();
    ObjectMeta metadata = metadata(job, jobName(job, step), step.command(), true);
    return new JobBuilder()
        .withMetadata(metadata)
        .withNewSpec()
        .withCompletionMode("Indexed")
        .withCompletions(workers)
        .withParallelism(workers)
        .withBackoffLimitPerIndex(retries)
        // One index out of retries fails the step at once: the phase cannot succeed without it.
        .withMaxFailedIndexes(0)
        .withTtlSecondsAfterFinished(settings.finishedJobTtlSeconds())
        .withNewTemplate().withNewMetadata().withLabels(metadata.getLabels()).endMetadata().withSpec(podSpec)
        .endTemplate()
        .endSpec()
        .build();
  }

  /** The Job that deletes everything under the scratch prefix. */
  Job cleanJob(ShardSortJob job) {
    ShardSortJobSpec spec = job.getSpec();
    ObjectMeta metadata = metadata(job, cleanName(job), CLEAN_ROLE, false);
    // The spec names the job, so that clean deletes only a scratch marked for this job: a spec may name another
    // job's scratch, and that job's data must survive this one's cleanup. It runs where the workers run (their nodes
    // may be the only ones the namespace can use) with the default resources: deleting needs little.
    PodSpec podSpec = withSpec(job, withHeap(spec, pods.spec(spec.store(), List.of("sort", "clean", "--spec",
        SPEC_DIR + "/" + SPEC_FILE, "--scratch", ScratchPrefix.of(job), "--result", WorkerPods.RESULT_FILE), null,
        spec.workers(), List.of(specMount()))), true);
    return new JobBuilder()
        .withMetadata(metadata)
        .withNewSpec()
        .withBackoffLimit(CLEAN_RETRIES)
        .withTtlSecondsAfterFinished(CLEAN_TTL_SECONDS)
        .withNewTemplate().withNewMetadata().withLabels(metadata.getLabels()).endMetadata().withSpec(podSpec)
        .endTemplate()
        .endSpec()
        .build();
  }

  /** The worker's heap ({@link WorkerHeap}) from the spec's budget and the memory limit its container got. */
  private static PodSpecBuilder withHeap(ShardSortJobSpec spec, PodSpecBuilder pod) {
    WorkerHeap.of(spec.workers() == null ? null : spec.workers().memoryBudget(),
            pod.buildFirstContainer().getResources())
        .ifPresent(heap -> pod.editFirstContainer().addToEnv(heap).endContainer());
    return pod;
  }

  private static VolumeMount specMount() {
    return new VolumeMountBuilder().withName("spec").withMountPath(SPEC_DIR).withReadOnly(true).build();
  }

  /**
   * Mounts the spec ConfigMap. The cleanup Job's mount is optional: the ConfigMap is owned by the resource, so a
   * foreground deletion may remove it first, and clean should then fail in one line (the scratch left, said in an
   * event) rather than wait forever for a volume.
   */
  private static PodSpec withSpec(ShardSortJob job, PodSpecBuilder pod, boolean optional) {
    return pod.addToVolumes(new VolumeBuilder().withName("spec").withNewConfigMap().withName(specName(job))
        .withOptional(optional ? Boolean.TRUE : null).endConfigMap().build()).build();
  }

  private static ObjectMeta metadata(ShardSortJob job, String name, String role, boolean owned) {
    ObjectMetaBuilder metadata = new ObjectMetaBuilder()
        .withName(name)
        .withNamespace(job.getMetadata().getNamespace())
        .withLabels(WorkerLabels.of(OWNER_LABEL, job, role.equals(CLEAN_ROLE) ? "scratch-cleaner" : "worker",
            role));
    if (owned) {
      metadata.withOwnerReferences(Ownership.controllerOf(job));
    }
    return metadata.build();
  }
}
