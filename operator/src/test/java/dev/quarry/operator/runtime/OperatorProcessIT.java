package dev.quarry.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.quarry.operator.testing.RunningOperator;
import dev.quarry.testkit.KubeApi;
import dev.quarry.testkit.KubeApiExtension;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The operator process: probes, metrics, and leader election between two replicas. */
@ExtendWith(KubeApiExtension.class)
class OperatorProcessIT {
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void probesAndMetricsAnswer(KubeApi api) throws Exception {
    try (RunningOperator operator = RunningOperator.start(api, api.createNamespace("quarry-system"), "probes")) {
      await().atMost(Duration.ofSeconds(30)).until(() -> get(operator, "/readyz").statusCode() == 200);
      assertThat(get(operator, "/healthz").statusCode()).isEqualTo(200);
      HttpResponse<String> metrics = get(operator, "/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.headers().firstValue("Content-Type")).hasValueSatisfying(
          type -> assertThat(type).startsWith("text/plain"));
      assertThat(metrics.body()).contains("jvm_memory_used_bytes", "operator_sdk_");
    }
  }

  @Test
  void oneReplicaLeadsAndTheOtherTakesOverWhenItStops(KubeApi api) throws Exception {
    String namespace = api.createNamespace("quarry-system");
    RunningOperator first = RunningOperator.start(api, namespace, "replica-a");
    try (RunningOperator second = RunningOperator.start(api, namespace, "replica-b")) {
      await().atMost(Duration.ofSeconds(30)).until(() -> holder(api, namespace), "replica-a"::equals);
      // The standby is healthy and ready: it takes over as soon as the leader goes.
      assertThat(get(second, "/healthz").statusCode()).isEqualTo(200);
      first.close();
      await().atMost(Duration.ofSeconds(60)).until(() -> holder(api, namespace), "replica-b"::equals);
    } finally {
      first.close();
    }
  }

  private static String holder(KubeApi api, String namespace) {
    Lease lease = api.client().leases().inNamespace(namespace).withName("quarry-operator").get();
    return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
  }

  private HttpResponse<String> get(RunningOperator operator, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + operator.httpPort() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
