package dev.quarry.operator.testing;

import dev.quarry.operator.QuarryOperator;
import dev.quarry.operator.runtime.OperatorSettings;
import dev.quarry.testkit.KubeApi;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

/**
 * The operator running in the test JVM against a real API server, as the chart configures it (leader election on),
 * with its own client so that stopping it leaves the test's client working.
 */
public final class RunningOperator implements AutoCloseable {
  public static final String WORKER_IMAGE = "quarry-worker:test";
  public static final String AGENT_IMAGE = "quarry-agent:test";

  private final KubernetesClient client;
  private final QuarryOperator operator;
  private boolean closed;

  private RunningOperator(KubernetesClient client, QuarryOperator operator) {
    this.client = client;
    this.operator = operator;
  }

  public static RunningOperator start(KubeApi api, String namespace, String identity) throws IOException {
    return start(api, namespace, identity, Map.of());
  }

  /** The same, with more variables of the chart's Deployment, for example what the admin allows. */
  public static RunningOperator start(KubeApi api, String namespace, String identity, Map<String, String> more)
      throws IOException {
    Map<String, String> env = new HashMap<>(Map.of(
        "QUARRY_NAMESPACE", namespace,
        "QUARRY_WORKER_IMAGE", WORKER_IMAGE,
        "QUARRY_AGENT_IMAGE", AGENT_IMAGE,
        "QUARRY_AGENT_RESOURCES", "{\"requests\":{\"cpu\":\"50m\",\"memory\":\"128Mi\"}}",
        "QUARRY_HTTP_PORT", "0",
        "POD_NAME", identity));
    env.putAll(more);
    OperatorSettings settings = OperatorSettings.fromEnvironment(env).stayingAliveWithoutLeadership();
    KubernetesClient client = new KubernetesClientBuilder().withConfig(api.client().getConfiguration()).build();
    return new RunningOperator(client, QuarryOperator.start(client, settings, Clock.systemUTC()));
  }

  /** The operator's {@code /metrics}, {@code /healthz} and {@code /readyz} port. */
  public int httpPort() {
    return operator.httpPort();
  }

  /** Stops the operator, as a pod that is deleted would; closing twice is harmless. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    operator.close();
    client.close();
  }
}
