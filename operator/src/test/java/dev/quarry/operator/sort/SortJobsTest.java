package dev.quarry.operator.sort;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.shardsort.ShardSortJob;
import dev.quarry.api.shardsort.ShardSortJobSpec;
import dev.quarry.api.shardsort.ShardSortWorkers;
import dev.quarry.core.memory.MemoryLimit;
import dev.quarry.core.sort.MemoryBudget;
import dev.quarry.operator.jobs.WorkerPodDefaults;
import dev.quarry.operator.jobs.WorkerSettings;
import dev.quarry.testkit.RepositoryRoot;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The pods of a ShardSortJob's steps, as the operator builds them. */
class SortJobsTest {
  private static final WorkerSettings SETTINGS = new WorkerSettings("quarry-worker:1", "IfNotPresent", null, 60,
      new EndpointAllowlist(List.of()), false, WorkerPodDefaults.BUILT_IN);
  private static final ResourceRequirements ADMINS_DEFAULT = new ResourceRequirementsBuilder()
      .addToLimits("memory", new Quantity("1Gi")).build();

  /**
   * Each worker carries its heap in QUARRY_SORT_HEAP, by the worker's own rule (core's MemoryBudget), so that the
   * image's entrypoint starts no JVM to work it out: the spec's budget, else 80% of the container's memory limit
   * (the resource's own, else the admin's default); none without either, and the entrypoint works it out as before.
   */
  @Test
  void eachWorkerCarriesTheHeapItsBudgetOrMemoryLimitGives() throws IOException {
    ShardSortJob shipped = example(); // memoryBudget 2Gi, limits.memory 3Gi
    assertThat(heap(shipped, SortStep.EXTRACT)).contains("2048m");
    assertThat(heap(shipped, SortStep.CREATE)).contains("2048m");
    assertThat(heap(shipped, SortStep.COMMIT)).contains("2048m");
    assertThat(heap(shipped, null)).as("the scratch cleaner").contains("2048m");

    ShardSortJob byLimit = withWorkers(shipped, null, limit("3Gi"));
    assertThat(heap(byLimit, SortStep.PLAN)).contains("2457m")
        .contains(MemoryBudget.defaultFor(new MemoryLimit(3L << 30, "test")).heapSize(false));
    assertThat(heap(withWorkers(shipped, null, limit("256Mi")), SortStep.EXTRACT))
        .as("under 640 MiB: the limit less 128 MiB").contains("128m");
    assertThat(heap(withWorkers(shipped, null, null), SortStep.EXTRACT)).as("the admin's default limit")
        .contains("819m");
    assertThat(heap(withWorkers(shipped, "1Gi", null), SortStep.EXTRACT)).contains("1024m");

    WorkerSettings noDefaults = new WorkerSettings("quarry-worker:1", "IfNotPresent", null, 60,
        new EndpointAllowlist(List.of()), false, WorkerPodDefaults.BUILT_IN);
    assertThat(heap(noDefaults, withWorkers(shipped, null, null), SortStep.EXTRACT))
        .as("no limit: the node's memory, which only the pod sees").isEmpty();
    assertThat(heap(noDefaults, withWorkers(shipped, null, limit("128Mi")), SortStep.EXTRACT))
        .as("a limit the worker refuses, and says why").isEmpty();
  }

  private static Optional<String> heap(ShardSortJob job, SortStep step) {
    WorkerPodDefaults admins = new WorkerPodDefaults(ADMINS_DEFAULT, Map.of(), List.of(), null, null,
        WorkerPodDefaults.BUILT_IN.podSecurityContext(), WorkerPodDefaults.BUILT_IN.securityContext(), List.of());
    return heap(new WorkerSettings("quarry-worker:1", "IfNotPresent", null, 60, new EndpointAllowlist(List.of()),
        false, admins), job, step);
  }

  private static Optional<String> heap(WorkerSettings settings, ShardSortJob job, SortStep step) {
    SortJobs jobs = new SortJobs(settings);
    PodSpec pod = (step == null ? jobs.cleanJob(job) : jobs.stepJob(job, step)).getSpec().getTemplate().getSpec();
    List<EnvVar> env = pod.getContainers().getFirst().getEnv();
    return env.stream().filter(variable -> variable.getName().equals("QUARRY_SORT_HEAP")).map(EnvVar::getValue)
        .findFirst();
  }

  private static ResourceRequirements limit(String memory) {
    return new ResourceRequirementsBuilder().addToLimits("memory", new Quantity(memory)).build();
  }

  private static ShardSortJob withWorkers(ShardSortJob job, String memoryBudget, ResourceRequirements resources) {
    ShardSortJobSpec spec = job.getSpec();
    ShardSortWorkers w = spec.workers();
    ShardSortJob copy = new KubernetesSerialization().clone(job);
    copy.setSpec(new ShardSortJobSpec(spec.store(), spec.input(), spec.output(), spec.order(), spec.policies(),
        new ShardSortWorkers(w.extract(), w.create(), memoryBudget, w.requestsInFlight(), w.retriesPerIndex(),
            resources, w.nodeSelector(), w.tolerations(), w.affinity(), w.priorityClassName()),
        spec.scratch(), spec.dryRun(), spec.overwrite(), null));
    return copy;
  }

  private static ShardSortJob example() throws IOException {
    ShardSortJob job = new KubernetesSerialization().unmarshal(Files.readString(RepositoryRoot.find().resolve(
        "docs/examples/shardsortjob-shuffle.yaml")), ShardSortJob.class);
    job.getMetadata().setNamespace("ml");
    job.getMetadata().setUid("uid-1");
    return job;
  }
}
