package dev.quarry.operator.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.quarry.api.datasetsync.DatasetSync;
import dev.quarry.api.datasetsync.DatasetSyncSpec;
import dev.quarry.api.datasetsync.DatasetSyncStatus;
import dev.quarry.api.datasetsync.SyncPhase;
import dev.quarry.api.datasetsync.VolumeSource;
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
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/** DatasetSyncs reconciled by the operator on a real API server, with the test playing the Job controller. */
@ExtendWith(KubeApiExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatasetSyncIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String PUSH_RESULT = """
      {"operation":"push","remote":"s3://datasets/cas/coco","ref":"latest",
       "version":"sha256:1111111111111111111111111111111111111111111111111111111111111111",
       "files":118287,"bytes":19336861798,"hashedFiles":12,"missingRemote":{"objects":12,"bytes":2048000},
       "transferred":{"objects":13,"bytes":2049000},"requests":{"head":0,"list":3,"get":1,"put":14,"delete":0},
       "strategy":{"name":"list","reason":"12 unknown objects, remote holds about 200000: 3 LIST pages beat 12 HEAD"},
       "failures":0,"warnings":[],"startTime":"2026-11-22T01:00:00Z","endTime":"2026-11-22T01:00:09Z",
       "elapsedSeconds":9.0}
      """;
  private final KubeApi api;
  private final KubernetesClient client;
  private final FakeKubelet kubelet;
  private final RunningOperator operator;
  private String namespace;

  DatasetSyncIT(KubeApi api) throws Exception {
    this.api = api;
    this.client = api.client();
    this.kubelet = new FakeKubelet(client);
    this.operator = RunningOperator.start(api, api.createNamespace("quarry-system"), "sync-test-operator");
  }

  @AfterAll
  void stopOperator() {
    operator.close();
  }

  @BeforeEach
  void createNamespace() {
    namespace = api.createNamespace("sync");
    kubelet.prepareNamespace(namespace);
  }

  @Test
  void aPushRunsOnceWithTheVolumeMountedAndItsResultBecomesTheStatus() throws Exception {
    DatasetSync created = client.resource(example("coco-push")).create();
    KubectlWait waitForReady = KubectlWait.forReady(api, namespace, "dss/coco-push", 120);
    Job job = awaitJob("coco-push-push-g1");
    var pod = job.getSpec().getTemplate().getSpec();
    assertThat(pod.getContainers().get(0).getArgs()).containsExactly("sync", "push", "/data", "--ref",
        "latest", "--by", "datasetsync/" + namespace + "/coco-push", "--remote", "s3://datasets/cas/coco",
        "--requests-in-flight", "64", "--result", "/dev/termination-log");
    assertThat(pod.getContainers().get(0).getVolumeMounts()).filteredOn(mount -> mount.getMountPath().equals("/data"))
        .singleElement().satisfies(mount -> assertThat(mount.getSubPath()).as("only the folder of the volume")
            .isEqualTo("coco/2017"));
    assertThat(pod.getVolumes()).filteredOn(volume -> volume.getPersistentVolumeClaim() != null).singleElement()
        .satisfies(volume -> assertThat(volume.getPersistentVolumeClaim().getClaimName()).isEqualTo("coco-data"));
    assertThat(job.getMetadata().getOwnerReferences()).singleElement()
        .satisfies(owner -> assertThat(owner.getUid()).isEqualTo(created.getMetadata().getUid()));
    assertThat(awaitStatus("coco-push", s -> s.phase() == SyncPhase.Running).startTime()).isNotNull();
    assertThat(waitForReady.returned()).as("kubectl wait --for=condition=Ready while the push runs").isFalse();

    kubelet.finish(job, 0, 0, PUSH_RESULT);
    kubelet.complete(job);
    DatasetSyncStatus status = awaitStatus("coco-push", s -> s.phase() == SyncPhase.Succeeded);
    assertThat(waitForReady.result().exitCode()).as(waitForReady.result().stderr()).isZero();
    assertThat(waitForReady.result().stdout()).contains("datasetsync.quarry.dev/coco-push condition met");
    assertThat(status.version()).startsWith("sha256:1111");
    assertThat(status.files()).isEqualTo(118287);
    assertThat(status.bytes()).isEqualTo(19336861798L);
    assertThat(status.missingRemote().objects()).isEqualTo(12);
    assertThat(status.transferred().bytes()).isEqualTo(2049000);
    assertThat(status.requests().put()).isEqualTo(14);
    assertThat(status.strategy().name()).isEqualTo("list");
    assertThat(status.strategy().reason()).contains("3 LIST pages");
    assertThat(status.observedGeneration()).isEqualTo(1);
    assertThat(ready(status).getStatus()).isEqualTo("True");
    assertThat(ready(status).getMessage()).startsWith("Push succeeded: 118287 files, version sha256:1111");
    CommandResult get = api.kubectl("get", "dss", "-n", namespace);
    assertThat(get.stdout().lines().skip(1).findFirst().orElseThrow().split("\\s+"))
        .startsWith("coco-push", "Push", "Succeeded", "118287", "19336861798");

    // The same spec again does nothing; a new trigger value runs again.
    client.resource(example("coco-push")).serverSideApply();
    Thread.sleep(1000);
    assertThat(jobs()).hasSize(1);
    Conflicts.retried(() -> client.resources(DatasetSync.class).inNamespace(namespace).withName("coco-push")
        .edit(sync -> {
          sync.getMetadata().setAnnotations(Map.of(DatasetSync.TRIGGER_ANNOTATION, "2026-11-22T02:00"));
          return sync;
        }));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs()).hasSize(2));
    DatasetSyncStatus rerun = awaitStatus("coco-push", s -> "2026-11-22T02:00".equals(s.observedTrigger()));
    assertThat(rerun.phase()).isEqualTo(SyncPhase.Running);
    assertThat(rerun.files()).as("the last run's results stay visible while the next runs").isEqualTo(118287);
    // What docs/api.md gives pipelines after a trigger: wait for the operator to take it, then for Ready.
    CommandResult taken = api.kubectl("wait", "-n", namespace,
        "--for=jsonpath={.status.observedTrigger}=2026-11-22T02:00", "--timeout=30s", "dss/coco-push");
    assertThat(taken.exitCode()).as(taken.stderr()).isZero();
    assertThat(KubectlWait.forReady(api, namespace, "dss/coco-push", 2).result().exitCode())
        .as("the last run's Ready does not count for the triggered run").isNotZero();
  }

  /** A sync's own placement passes the API server's schema and replaces the admin's in its worker pod. */
  @Test
  void theSyncsOwnPlacementReachesItsWorkerPod() {
    DatasetSync sync = example("placed");
    DatasetSyncSpec spec = sync.getSpec();
    Toleration spot = new TolerationBuilder().withKey("spot").withOperator("Equal").withValue("true")
        .withEffect("NoSchedule").build();
    Affinity zone = new AffinityBuilder().withNewNodeAffinity().addNewPreferredDuringSchedulingIgnoredDuringExecution()
        .withWeight(10).withNewPreference().addNewMatchExpression().withKey("topology.kubernetes.io/zone")
        .withOperator("In").withValues("eu-west-1b").endMatchExpression().endPreference()
        .endPreferredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build();
    sync.setSpec(new DatasetSyncSpec(spec.volume(), spec.remote(), spec.store(), spec.operation(), spec.ref(),
        spec.pull(), spec.gc(), spec.requestsInFlight(), spec.resources(), Map.of("storage", "near"),
        List.of(spot), zone, "sync-low"));
    client.resource(sync).create();

    Job job = awaitJob("placed-push-g1");
    var pod = job.getSpec().getTemplate().getSpec();
    assertThat(pod.getNodeSelector()).isEqualTo(Map.of("storage", "near"));
    assertThat(pod.getTolerations()).containsExactly(spot);
    assertThat(pod.getAffinity()).isEqualTo(zone);
    assertThat(pod.getPriorityClassName()).isEqualTo("sync-low");
    assertThat(pod.getContainers().get(0).getSecurityContext().getReadOnlyRootFilesystem())
        .as("the admin's hardening stays").isTrue();
    kubelet.finish(job, 0, 0, PUSH_RESULT);
    kubelet.complete(job);
    awaitStatus("placed", s -> s.phase() == SyncPhase.Succeeded);
  }

  @Test
  void runsOnOneVolumeNeverOverlap() {
    client.resource(example("first")).create();
    Job first = awaitJob("first-push-g1");
    DatasetSync second = example("second");
    client.resource(second).create();
    DatasetSyncStatus waiting = awaitStatus("second", s -> s.phase() == SyncPhase.Pending);
    assertThat(ready(waiting).getReason()).isEqualTo("WaitingForVolume");
    assertThat(ready(waiting).getMessage()).isEqualTo("Waiting for DatasetSync first (push, Job first-push-g1) to"
        + " finish: runs on volume coco-data never overlap");
    assertThat(jobs()).hasSize(1);

    kubelet.finish(first, 0, 0, PUSH_RESULT);
    kubelet.complete(first);
    Job started = awaitJob("second-push-g1");
    assertThat(started.getSpec().getTemplate().getSpec().getVolumes())
        .filteredOn(volume -> volume.getPersistentVolumeClaim() != null).singleElement()
        .satisfies(volume -> assertThat(volume.getPersistentVolumeClaim().getClaimName()).isEqualTo("coco-data"));
  }

  @Test
  void aFailedRunReportsTheWorkersMessage() {
    client.resource(example("denied")).create();
    Job job = awaitJob("denied-push-g1");
    for (int attempt = 0; attempt < 3; attempt++) {
      kubelet.finish(job, 0, 1, "push: scanning /data\nquarry: Cannot list s3://datasets/cas/coco/refs/:"
          + " Access Denied\n");
    }
    kubelet.fail(job, 0);
    DatasetSyncStatus failed = awaitStatus("denied", s -> s.phase() == SyncPhase.Failed);
    assertThat(ready(failed).getReason()).isEqualTo("PushFailed");
    assertThat(ready(failed).getMessage()).isEqualTo("Cannot push volume coco-data/coco/2017: quarry: Cannot list"
        + " s3://datasets/cas/coco/refs/: Access Denied");
    assertThat(failed.completionTime()).isNotNull();
  }

  @Test
  void aHundredResourcesAreReconciledWithoutStatusConflicts() throws Exception {
    List<String> names = IntStream.range(0, 100).mapToObj(i -> "bulk-" + i).toList();
    for (String name : names) {
      DatasetSync sync = example(name);
      DatasetSyncSpec spec = sync.getSpec();
      sync.setSpec(new DatasetSyncSpec(new VolumeSource("claim-" + name, "data"), spec.remote(), spec.store(),
          spec.operation(), null, null, null, null, null, null, null, null, null));
      client.resource(sync).create();
    }
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs()).hasSize(100));
    for (Job job : jobs()) {
      kubelet.finish(job, 0, 0, PUSH_RESULT);
      kubelet.complete(job);
    }
    await().atMost(WAIT).untilAsserted(() -> assertThat(client.resources(DatasetSync.class).inNamespace(namespace)
        .list().getItems()).hasSize(100).allSatisfy(sync -> {
          assertThat(sync.getStatus()).isNotNull();
          assertThat(sync.getStatus().phase()).isEqualTo(SyncPhase.Succeeded);
          assertThat(sync.getStatus().files()).isEqualTo(118287);
        }));
    String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + operator.httpPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    String reconciliations = metrics.lines().filter(line -> line.contains("reconciliations"))
        .reduce("", (a, b) -> a + "\n" + b);
    assertThat(value(metrics, "operator_sdk_reconciliations_success_total", "DatasetSync")).as(reconciliations)
        .isGreaterThan(200);
    assertThat(value(metrics, "operator_sdk_reconciliations_failed_total", "DatasetSync")).as(reconciliations)
        .isZero();
    // Quarry's own: each run's end once (other tests' resources may end too while this operator runs), what the
    // pushes moved, and the resources by phase.
    int others = client.resources(DatasetSync.class).inAnyNamespace().list().getItems().size() - 100;
    assertThat(value(metrics, "quarry_runs_finished_total", "kind=\"DatasetSync\",result=\"Succeeded\""))
        .isBetween(100.0, 100.0 + others);
    assertThat(value(metrics, "quarry_run_duration_seconds_count", "kind=\"DatasetSync\""))
        .isBetween(100.0, 100.0 + others);
    assertThat(value(metrics, "quarry_sync_bytes_total", "operation=\"Push\"")).isGreaterThanOrEqualTo(
        100 * 2049000.0);
    assertThat(value(metrics, "quarry_resources", "kind=\"DatasetSync\",phase=\"Succeeded\""))
        .isGreaterThanOrEqualTo(100);
  }

  private static double value(String metrics, String name, String controller) {
    return metrics.lines().filter(line -> line.startsWith(name) && line.contains(controller))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
  }

  private DatasetSync example(String name) {
    return Manifests.example(client, "datasetsync-push.yaml", DatasetSync.class, namespace, name);
  }

  private List<Job> jobs() {
    return client.batch().v1().jobs().inNamespace(namespace).list().getItems();
  }

  private Job awaitJob(String name) {
    return await().atMost(WAIT).until(() -> client.batch().v1().jobs().inNamespace(namespace).withName(name).get(),
        Objects::nonNull);
  }

  private DatasetSyncStatus awaitStatus(String name, Predicate<DatasetSyncStatus> condition) {
    return await().atMost(WAIT).until(() -> client.resources(DatasetSync.class).inNamespace(namespace)
        .withName(name).get().getStatus(), status -> status != null && condition.test(status));
  }

  private static Condition ready(DatasetSyncStatus status) {
    return status.conditions().stream().filter(c -> c.getType().equals("Ready")).findFirst().orElseThrow();
  }
}
