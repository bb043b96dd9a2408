package dev.quarry.operator.sort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.quarry.api.shardsort.OrderKind;
import dev.quarry.api.shardsort.ShardOrder;
import dev.quarry.api.shardsort.ShardSortJob;
import dev.quarry.api.shardsort.ShardSortJobSpec;
import dev.quarry.api.shardsort.ShardSortJobStatus;
import dev.quarry.api.shardsort.ShardSortPhase;
import dev.quarry.api.shardsort.ShardSortWorkers;
import dev.quarry.operator.testing.Conflicts;
import dev.quarry.operator.testing.FakeKubelet;
import dev.quarry.operator.testing.KubectlWait;
import dev.quarry.operator.testing.Manifests;
import dev.quarry.operator.testing.RunningOperator;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.KubeApi;
import dev.quarry.testkit.KubeApiExtension;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/** ShardSortJobs reconciled by the operator on a real API server, with the test playing the Job controller. */
@ExtendWith(KubeApiExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShardSortJobIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private final KubeApi api;
  private final KubernetesClient client;
  private final FakeKubelet kubelet;
  private final String operatorNamespace;
  private String namespace;
  private RunningOperator operator;

  ShardSortJobIT(KubeApi api) {
    this.api = api;
    this.client = api.client();
    this.kubelet = new FakeKubelet(client);
    this.operatorNamespace = api.createNamespace("quarry-system");
  }

  @BeforeEach
  void startOperator() throws Exception {
    namespace = api.createNamespace("sort");
    kubelet.prepareNamespace(namespace);
    operator = RunningOperator.start(api, operatorNamespace, "test-operator");
  }

  @AfterEach
  void stopOperator() {
    if (operator != null) {
      operator.close();
    }
  }

  @Test
  void runsEveryStepInTurnAndReportsProgressUntilCommitted() throws Exception {
    ShardSortJob created = client.resource(example("shuffle")).create();
    KubectlWait waitForReady = KubectlWait.forReady(api, namespace, "ssj/shuffle", 120);

    Job extract = awaitJob("shuffle-extract");
    assertThat(extract.getSpec().getCompletionMode()).isEqualTo("Indexed");
    assertThat(extract.getSpec().getCompletions()).isEqualTo(8);
    assertThat(extract.getSpec().getBackoffLimitPerIndex()).isEqualTo(3);
    assertThat(extract.getSpec().getMaxFailedIndexes()).isZero();
    assertThat(extract.getMetadata().getOwnerReferences()).singleElement()
        .satisfies(owner -> assertThat(owner.getUid()).isEqualTo(created.getMetadata().getUid()));
    var container = extract.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getImage()).isEqualTo(RunningOperator.WORKER_IMAGE);
    assertThat(container.getArgs()).containsExactly("sort", "extract", "--spec", "/etc/quarry/spec.json",
        "--result", "/dev/termination-log", "--index", "$(JOB_COMPLETION_INDEX)", "--count", "8", "--partitions",
        "8");
    assertThat(container.getTerminationMessagePolicy()).isEqualTo("FallbackToLogsOnError");
    assertThat(container.getEnv()).extracting(EnvVar::getName)
        .contains("QUARRY_S3_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY");
    assertThat(container.getEnv()).filteredOn(env -> env.getName().equals("AWS_SECRET_ACCESS_KEY")).singleElement()
        .satisfies(env -> assertThat(env.getValueFrom().getSecretKeyRef().getName()).isEqualTo("s3-credentials"));
    assertThat(extract.getSpec().getTemplate().getSpec().getAutomountServiceAccountToken()).isFalse();
    String spec = client.configMaps().inNamespace(namespace).withName("shuffle-spec").get().getData()
        .get("spec.json");
    assertThat(spec).contains("\"scratch\":\"s3://datasets/.quarry-scratch/" + namespace + "/shuffle/\"")
        .contains("\"seed\":20261121");

    // Half the extract workers finish: progress moves, records are counted so far.
    for (int index = 0; index < 4; index++) {
      kubelet.finish(extract, index, 0, Manifests.phaseResult("extract", index, 160, 1000, 1_000_000));
    }
    kubelet.progress(extract, 4);
    ShardSortJobStatus halfway = awaitStatus("shuffle", s -> "20%".equals(s.progress()));
    assertThat(waitForReady.returned()).as("kubectl wait --for=condition=Ready while the job runs").isFalse();
    assertThat(halfway.phase()).isEqualTo(ShardSortPhase.Extracting);
    assertThat(halfway.records()).isEqualTo(4000);
    assertThat(halfway.workers()).hasSize(8).filteredOn(w -> "Succeeded".equals(w.state())).hasSize(4);
    assertThat(ready(halfway).getMessage()).isEqualTo(
        "Reading the input: 4 of 8 extract workers done, 4000 records so far");
    CommandResult get = api.kubectl("get", "ssj", "-n", namespace);
    assertThat(get.stdout().lines().skip(1).findFirst().orElseThrow().split("\\s+"))
        .startsWith("shuffle", "Extracting", "20%", "4000");

    for (int index = 4; index < 8; index++) {
      kubelet.finish(extract, index, 0, Manifests.phaseResult("extract", index, 160, 1000, 1_000_000));
    }
    kubelet.complete(extract);

    // One partition step per create worker orders its share of the records.
    Job partition = awaitJob("shuffle-partition");
    assertThat(partition.getSpec().getCompletions()).isEqualTo(8);
    assertThat(partition.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs()).containsExactly(
        "sort", "partition", "--spec", "/etc/quarry/spec.json", "--result", "/dev/termination-log", "--index",
        "$(JOB_COMPLETION_INDEX)", "--count", "8", "--extract-count", "8", "--then-plan");
    ShardSortJobStatus ordering = awaitStatus("shuffle", s -> s.phase() == ShardSortPhase.Planning);
    assertThat(ready(ordering).getMessage()).isEqualTo("Ordering 8000 records in 8 partitions: 0 done");
    // The last workers to finish also plan, and say so in their results: two finished together, and both planned.
    String plan = Manifests.phaseResult("plan", 0, 31, 7990, 7_990_000);
    for (int index = 0; index < 8; index++) {
      String ordered = Manifests.phaseResult("partition", index, 0, 1000, 1_000_000);
      kubelet.finish(partition, index, 0, index < 6 ? ordered : "[" + ordered + "," + plan + "]");
    }
    kubelet.complete(partition);

    Job create = awaitJob("shuffle-create");
    assertThat(create.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .endsWith("--count", "8", "--then-commit");
    ShardSortJobStatus creating = awaitStatus("shuffle", s -> s.phase() == ShardSortPhase.Creating);
    assertThat(creating.shardsTotal()).as("one plan, however many workers ran it").isEqualTo(31);
    assertThat(creating.phases().plan().records()).isEqualTo(7990);
    for (int index = 0; index < 8; index++) {
      String shards = Manifests.phaseResult("create", index, index < 7 ? 4 : 3, 1000, 1_000_000);
      kubelet.finish(create, index, 0, index < 7 ? shards
          : "[" + shards + "," + Manifests.phaseResult("commit", 0, 31, 7990, 7_990_000) + "]");
    }
    kubelet.complete(create);

    ShardSortJobStatus done = awaitStatus("shuffle", s -> s.phase() == ShardSortPhase.Succeeded);
    assertThat(waitForReady.result().exitCode()).as(waitForReady.result().stderr()).isZero();
    assertThat(waitForReady.result().stdout()).contains("shardsortjob.quarry.dev/shuffle condition met");
    assertThat(client.batch().v1().jobs().inNamespace(namespace).list().getItems())
        .extracting(job -> job.getMetadata().getName()).as("plan and commit ran in the last workers' pods")
        .doesNotContain("shuffle-plan", "shuffle-commit");
    assertThat(done.progress()).isEqualTo("100%");
    assertThat(done.records()).isEqualTo(7990);
    assertThat(done.shards()).isEqualTo("31/31");
    assertThat(done.manifest()).isEqualTo("s3://datasets/imagenet-shuffled/manifest.json");
    assertThat(done.phases().extract().records()).isEqualTo(8000);
    assertThat(done.phases().extract().bytes()).isEqualTo(8_000_000);
    assertThat(done.phases().extract().requests().get()).isEqualTo(24);
    assertThat(done.phases().extract().startTime()).isEqualTo("2026-11-22T01:00:00Z");
    assertThat(done.phases().create().shards()).isEqualTo(31);
    assertThat(ready(done).getStatus()).isEqualTo("True");
    assertThat(ready(done).getMessage()).isEqualTo(
        "Committed 31 shards with 7990 records; manifest s3://datasets/imagenet-shuffled/manifest.json");
    assertThat(done.observedGeneration()).isEqualTo(created.getMetadata().getGeneration());

    // The job ended: its scratch data goes, by a Job that is not owned by the resource.
    Job clean = awaitJob("shuffle-clean");
    assertThat(clean.getMetadata().getOwnerReferences()).isEmpty();
    assertThat(clean.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs()).containsExactly(
        "sort", "clean", "--spec", "/etc/quarry/spec.json", "--scratch",
        "s3://datasets/.quarry-scratch/" + namespace + "/shuffle/",
        "--result", "/dev/termination-log");
    // The spec names the job, so that clean refuses a scratch marked for another job.
    assertThat(clean.getSpec().getTemplate().getSpec().getVolumes()).filteredOn(v -> v.getName().equals("spec"))
        .singleElement().satisfies(volume -> assertThat(volume.getConfigMap().getName()).isEqualTo("shuffle-spec"));
    kubelet.finish(clean, 0, 0, "{}");
    kubelet.complete(clean);
    ShardSortJobStatus cleaned = awaitStatus("shuffle",
        s -> s.conditions().stream().anyMatch(c -> c.getType().equals("ScratchRemoved")
            && c.getStatus().equals("True")));
    assertThat(cleaned.phase()).isEqualTo(ShardSortPhase.Succeeded);
    assertThat(events("shuffle")).extracting(Event::getReason)
        .contains("Extracting", "Creating", "Succeeded");
  }

  @Test
  void aFailingIndexFailsTheJobWithTheWorkersMessage() throws Exception {
    client.resource(example("broken")).create();
    Job extract = awaitJob("broken-extract");
    kubelet.finish(extract, 0, 0, Manifests.phaseResult("extract", 0, 160, 1000, 1_000_000));
    String log = "extract: 3/160 shards, 100 records\n"
        + "quarry: Cannot read s3://datasets/imagenet/train-000321.tar: Access Denied (check the credentials"
        + " Secret)\n";
    for (int attempt = 0; attempt < 4; attempt++) {
      kubelet.finish(extract, 1, 1, log);
    }
    kubelet.fail(extract, 1);

    ShardSortJobStatus failed = awaitStatus("broken", s -> s.phase() == ShardSortPhase.Failed);
    assertThat(ready(failed).getReason()).isEqualTo("ExtractFailed");
    assertThat(ready(failed).getMessage()).isEqualTo("Cannot extract: extract worker 1: quarry: Cannot read"
        + " s3://datasets/imagenet/train-000321.tar: Access Denied (check the credentials Secret)");
    assertThat(failed.workers()).filteredOn(w -> w.index() == 1).singleElement().satisfies(worker -> {
      assertThat(worker.state()).isEqualTo("Failed");
      assertThat(worker.attempts()).isEqualTo(4);
      assertThat(worker.message()).contains("Access Denied");
    });
    assertThat(failed.completionTime()).isNotNull();
    // What docs/api.md gives pipelines to stop at a failure: wait for the end, then read Ready.
    CommandResult ended = api.kubectl("wait", "-n", namespace, "--for=jsonpath={.status.completionTime}",
        "--timeout=30s", "ssj/broken");
    assertThat(ended.exitCode()).as(ended.stderr()).isZero();
    CommandResult ready = api.kubectl("get", "-n", namespace, "ssj/broken",
        "-o", "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}");
    assertThat(ready.stdout()).isEqualTo("False");
    await().atMost(WAIT).untilAsserted(() -> assertThat(events("broken"))
        .anySatisfy(event -> {
          assertThat(event.getType()).isEqualTo("Warning");
          assertThat(event.getMessage()).contains("Access Denied");
        }));
    // The failed Job stays for people to inspect (its TTL removes it); no later step starts; scratch data goes.
    assertThat(awaitJob("broken-clean")).isNotNull();
    assertThat(client.batch().v1().jobs().inNamespace(namespace).withName("broken-extract").get()).isNotNull();
    assertThat(client.batch().v1().jobs().inNamespace(namespace).withName("broken-plan").get()).isNull();
  }

  @Test
  void aRestartedOperatorCarriesOnWhereTheLastOneStopped() throws Exception {
    client.resource(example("restart")).create();
    Job extract = awaitJob("restart-extract");
    for (int index = 0; index < 8; index++) {
      kubelet.finish(extract, index, 0, Manifests.phaseResult("extract", index, 160, 1000, 1_000_000));
    }
    kubelet.complete(extract);
    Job partition = awaitJob("restart-partition");
    for (int index = 0; index < 8; index++) {
      kubelet.finish(partition, index, 0, Manifests.phaseResult("partition", index, 0, 1000, 1_000_000));
    }
    kubelet.complete(partition);
    // No worker reported a plan (a result the kubelet could not keep, say): the plan gets a Job of its own.
    Job plan = awaitJob("restart-plan");
    assertThat(plan.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .containsSequence("--extract-count", "8");
    operator.close();
    operator = null;

    kubelet.finish(plan, 0, 0, Manifests.phaseResult("plan", 0, 31, 8000, 8_000_000));
    kubelet.complete(plan);
    operator = RunningOperator.start(api, operatorNamespace, "test-operator-2");

    Job create = awaitJob("restart-create");
    ShardSortJobStatus status = awaitStatus("restart", s -> s.phase() == ShardSortPhase.Creating);
    assertThat(status.shardsTotal()).isEqualTo(31);
    assertThat(status.phases().extract().records()).isEqualTo(8000);
    assertThat(client.batch().v1().jobs().inNamespace(namespace).withName("restart-extract").get()
        .getMetadata().getUid()).as("the finished step is not run again").isEqualTo(extract.getMetadata().getUid());
    assertThat(client.batch().v1().jobs().inNamespace(namespace).withName("restart-partition").get()
        .getMetadata().getUid()).as("nor the partition step, done before the plan").isEqualTo(
            partition.getMetadata().getUid());
    assertThat(create.getSpec().getCompletions()).isEqualTo(8);
  }

  @Test
  void deletingARunningJobStopsItsWorkersAndRemovesItsScratchBeforeItGoes() throws Exception {
    client.resource(example("doomed")).create();
    Job extract = awaitJob("doomed-extract");
    var running = kubelet.run(extract, 0);
    awaitStatus("doomed", s -> s.startTime() != null);
    ShardSortJob current = client.resources(ShardSortJob.class).inNamespace(namespace).withName("doomed").get();
    assertThat(current.getMetadata().getFinalizers()).isNotEmpty();

    client.resource(current).delete();
    await().atMost(WAIT).until(() -> client.batch().v1().jobs().inNamespace(namespace).withName("doomed-extract")
        .get() == null);
    // The worker still runs: no sweep may start before it stops (the garbage collector would delete it).
    Thread.sleep(1500);
    assertThat(client.batch().v1().jobs().inNamespace(namespace).withName("doomed-clean").get()).isNull();
    assertThat(client.resources(ShardSortJob.class).inNamespace(namespace).withName("doomed").get()).isNotNull();
    client.resource(running).withGracePeriod(0).delete();

    Job clean = awaitJob("doomed-clean");
    kubelet.finish(clean, 0, 0, "{}");
    kubelet.complete(clean);
    await().atMost(WAIT).until(() -> client.resources(ShardSortJob.class).inNamespace(namespace).withName("doomed")
        .get() == null);
  }

  @Test
  void abortStopsTheWorkersOtherEditsAreRefusedAndReapplyingTheSameSpecDoesNothing() throws Exception {
    ShardSortJob job = client.resource(example("stopped")).create();
    Job extract = awaitJob("stopped-extract");
    ShardSortJobStatus before = awaitStatus("stopped", s -> s.phase() == ShardSortPhase.Extracting);

    // The same spec again: no new generation, no new Job, no status write.
    client.resource(example("stopped")).serverSideApply();
    Thread.sleep(1000);
    assertThat(client.resources(ShardSortJob.class).inNamespace(namespace).withName("stopped").get().getStatus())
        .isEqualTo(before);
    assertThat(client.batch().v1().jobs().inNamespace(namespace).withName("stopped-extract").get().getMetadata()
        .getResourceVersion()).isEqualTo(extract.getMetadata().getResourceVersion());

    // Another seed: refused by the API server, since the running job would not apply it.
    KubernetesClientException refused = catchThrowableOfType(KubernetesClientException.class, () ->
        editSpec("stopped", current -> new ShardSortJobSpec(current.store(), current.input(), current.output(),
            new ShardOrder(OrderKind.SHUFFLE, null, 1L, null, null), current.policies(), current.workers(),
            current.scratch(), current.dryRun(), current.overwrite(), null)));
    assertThat(refused.getCode()).isEqualTo(422);
    assertThat(refused.getMessage()).contains("only spec.abort can be changed once the job exists");
    assertThat(client.batch().v1().jobs().inNamespace(namespace).withName("stopped-extract").get().getMetadata()
        .getUid()).isEqualTo(extract.getMetadata().getUid());

    editSpec("stopped", current -> new ShardSortJobSpec(current.store(), current.input(), current.output(),
        current.order(), current.policies(), current.workers(), current.scratch(), current.dryRun(),
        current.overwrite(), true));
    ShardSortJobStatus aborted = awaitStatus("stopped", s -> s.phase() == ShardSortPhase.Aborted);
    assertThat(ready(aborted).getReason()).isEqualTo("Aborted");
    assertThat(aborted.observedGeneration()).isEqualTo(job.getMetadata().getGeneration() + 1);
    await().atMost(WAIT).until(() -> client.batch().v1().jobs().inNamespace(namespace).withName("stopped-extract")
        .get() == null);
    assertThat(awaitJob("stopped-clean")).isNotNull();
  }

  /**
   * A job's own placement passes the API server's schema (nothing pruned), reaches every Job it creates, the
   * cleanup's included, and falls under the rule that the spec is fixed once the job exists.
   */
  @Test
  void theJobsOwnPlacementReachesItsWorkerPodsAndCannotChangeOnceItExists() throws Exception {
    ShardSortJob job = example("placed");
    ShardSortWorkers example = job.getSpec().workers();
    Toleration gpu = new TolerationBuilder().withKey("nvidia.com/gpu").withOperator("Exists")
        .withEffect("NoSchedule").build();
    Affinity spread = new AffinityBuilder().withNewNodeAffinity()
        .withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm().addNewMatchExpression()
        .withKey("topology.kubernetes.io/zone").withOperator("In").withValues("eu-west-1a").endMatchExpression().endNodeSelectorTerm()
        .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().withNewPodAntiAffinity()
        .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(50).withNewPodAffinityTerm()
        .withNewLabelSelector().addToMatchLabels("app.kubernetes.io/name", "quarry-worker").endLabelSelector()
        .withTopologyKey("kubernetes.io/hostname").endPodAffinityTerm()
        .endPreferredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity().build();
    ShardSortJobSpec spec = job.getSpec();
    job.setSpec(new ShardSortJobSpec(spec.store(), spec.input(), spec.output(), spec.order(), spec.policies(),
        new ShardSortWorkers(example.extract(), example.create(), example.memoryBudget(),
            example.requestsInFlight(), example.retriesPerIndex(), example.resources(),
            Map.of("accelerator", "a100"), List.of(gpu), spread, "training-high"),
        spec.scratch(), spec.dryRun(), spec.overwrite(), null));
    client.resource(job).create();

    ShardSortWorkers stored = client.resources(ShardSortJob.class).inNamespace(namespace).withName("placed").get()
        .getSpec().workers();
    assertThat(stored.affinity()).as("kept whole by the API server's schema").isEqualTo(spread);
    PodSpec pod = awaitJob("placed-extract").getSpec().getTemplate().getSpec();
    assertThat(pod.getNodeSelector()).isEqualTo(Map.of("accelerator", "a100"));
    assertThat(pod.getTolerations()).containsExactly(gpu);
    assertThat(pod.getAffinity()).isEqualTo(spread);
    assertThat(pod.getPriorityClassName()).isEqualTo("training-high");
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).as("the admin's hardening stays").isTrue();
    assertThat(pod.getContainers().getFirst().getEnv()).as("the heap of the job's 2Gi budget, so no JVM works it out")
        .contains(new io.fabric8.kubernetes.api.model.EnvVar("QUARRY_SORT_HEAP", "2048m", null));

    KubernetesClientException refused = catchThrowableOfType(KubernetesClientException.class, () ->
        editSpec("placed", current -> {
          ShardSortWorkers w = current.workers();
          return new ShardSortJobSpec(current.store(), current.input(), current.output(), current.order(),
              current.policies(), new ShardSortWorkers(w.extract(), w.create(), w.memoryBudget(),
                  w.requestsInFlight(), w.retriesPerIndex(), w.resources(), w.nodeSelector(), w.tolerations(),
                  w.affinity(), "other"),
              current.scratch(), current.dryRun(), current.overwrite(), null);
        }));
    assertThat(refused.getCode()).isEqualTo(422);
    assertThat(refused.getMessage()).contains("only spec.abort can be changed once the job exists");

    client.resources(ShardSortJob.class).inNamespace(namespace).withName("placed").delete();
    Job clean = awaitJob("placed-clean");
    assertThat(clean.getSpec().getTemplate().getSpec().getNodeSelector()).isEqualTo(Map.of("accelerator", "a100"));
    assertThat(clean.getSpec().getTemplate().getSpec().getPriorityClassName()).isEqualTo("training-high");
    kubelet.finish(clean, 0, 0, "{}");
    kubelet.complete(clean);
  }

  /** Replaces the stored job's spec by {@code change} of it, on a fresh read if the operator wrote the job meanwhile. */
  private ShardSortJob editSpec(String name, UnaryOperator<ShardSortJobSpec> change) {
    return Conflicts.retried(() -> client.resources(ShardSortJob.class).inNamespace(namespace).withName(name)
        .edit(current -> {
          ShardSortJob copy = client.getKubernetesSerialization().clone(current);
          copy.setSpec(change.apply(current.getSpec()));
          return copy;
        }));
  }

  private ShardSortJob example(String name) {
    return Manifests.example(client, "shardsortjob-shuffle.yaml", ShardSortJob.class, namespace, name);
  }

  private Job awaitJob(String name) {
    return await().atMost(WAIT).until(() -> client.batch().v1().jobs().inNamespace(namespace).withName(name).get(),
        Objects::nonNull);
  }

  private ShardSortJobStatus awaitStatus(String name, Predicate<ShardSortJobStatus> condition) {
    return await().atMost(WAIT).until(() -> client.resources(ShardSortJob.class).inNamespace(namespace)
        .withName(name).get().getStatus(), status -> status != null && condition.test(status));
  }

  private List<Event> events(String name) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(event -> name.equals(event.getInvolvedObject().getName())).toList();
  }

  private static Condition ready(ShardSortJobStatus status) {
    return status.conditions().stream().filter(c -> c.getType().equals("Ready")).findFirst().orElseThrow();
  }
}
