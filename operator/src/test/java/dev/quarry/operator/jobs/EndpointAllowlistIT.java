package dev.quarry.operator.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.datasetsync.DatasetSync;
import dev.quarry.api.datasetsync.DatasetSyncSpec;
import dev.quarry.api.datasetsync.SyncPhase;
import dev.quarry.api.shardsort.ShardSortJob;
import dev.quarry.api.shardsort.ShardSortJobSpec;
import dev.quarry.api.shardsort.ShardSortPhase;
import dev.quarry.operator.testing.Manifests;
import dev.quarry.operator.testing.RunningOperator;
import dev.quarry.testkit.KubeApi;
import dev.quarry.testkit.KubeApiExtension;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With an endpoint allowlist set by the admin, a ShardSortJob or DatasetSync naming another endpoint fails at once,
 * and no worker (which would carry the credentials there) is ever created.
 */
@ExtendWith(KubeApiExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EndpointAllowlistIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final ObjectStore INTERNAL = new ObjectStore("http://169.254.169.254", "us-east-1", true, null);
  private static final String REFUSAL = "Invalid spec.store.endpoint: http://169.254.169.254 (must be one of the"
      + " endpoints the cluster admin allows: http://minio.storage.svc:9000)";
  private final KubernetesClient client;
  private final String namespace;
  private final RunningOperator operator;

  EndpointAllowlistIT(KubeApi api) throws Exception {
    this.client = api.client();
    this.namespace = api.createNamespace("endpoints");
    this.operator = RunningOperator.start(api, api.createNamespace("quarry-system"), "endpoints-operator",
        Map.of("QUARRY_STORE_ENDPOINTS", "http://minio.storage.svc:9000/"));
  }

  @AfterAll
  void stopOperator() {
    operator.close();
  }

  @Test
  void aShardSortJobWithAnEndpointNotAllowedFailsWithoutAWorker() {
    ShardSortJob job = Manifests.example(client, "shardsortjob-shuffle.yaml", ShardSortJob.class, namespace,
        "internal");
    ShardSortJobSpec spec = job.getSpec();
    job.setSpec(new ShardSortJobSpec(INTERNAL, spec.input(), spec.output(), spec.order(), spec.policies(),
        spec.workers(), spec.scratch(), spec.dryRun(), spec.overwrite(), spec.abort()));
    client.resource(job).create();
    ShardSortJob failed = await().atMost(WAIT).until(() -> client.resource(job).get(),
        j -> j.getStatus() != null && j.getStatus().phase() == ShardSortPhase.Failed);
    Condition ready = failed.getStatus().conditions().get(0);
    assertThat(ready.getReason()).isEqualTo("EndpointNotAllowed");
    assertThat(ready.getMessage()).isEqualTo("Cannot start: " + REFUSAL);
    assertThat(failed.getStatus().conditions()).filteredOn(c -> c.getType().equals("ScratchRemoved"))
        .singleElement().extracting(Condition::getReason).isEqualTo("NothingWritten");
    assertThat(client.batch().v1().jobs().inNamespace(namespace).list().getItems())
        .as("no worker, not even a clean-up one").isEmpty();
  }

  @Test
  void aDatasetSyncWithAnEndpointNotAllowedFailsWithoutAWorker() {
    DatasetSync sync = Manifests.example(client, "datasetsync-push.yaml", DatasetSync.class, namespace, "internal");
    DatasetSyncSpec spec = sync.getSpec();
    sync.setSpec(new DatasetSyncSpec(spec.volume(), spec.remote(), INTERNAL, spec.operation(), spec.ref(),
        spec.pull(), spec.gc(), spec.requestsInFlight(), spec.resources(), null, null, null, null));
    client.resource(sync).create();
    DatasetSync failed = await().atMost(WAIT).until(() -> client.resource(sync).get(),
        s -> s.getStatus() != null && s.getStatus().phase() == SyncPhase.Failed);
    Condition ready = failed.getStatus().conditions().get(0);
    assertThat(ready.getReason()).isEqualTo("EndpointNotAllowed");
    assertThat(ready.getMessage()).endsWith(": " + REFUSAL).startsWith("Cannot push volume ");
    assertThat(client.batch().v1().jobs().inNamespace(namespace).list().getItems()).isEmpty();
  }
}
