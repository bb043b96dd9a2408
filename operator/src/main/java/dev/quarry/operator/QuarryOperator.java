package dev.quarry.operator;

import dev.quarry.operator.cache.NodeCacheReconciler;
import dev.quarry.operator.runtime.OperatorSettings;
import dev.quarry.operator.runtime.ProbeServer;
import dev.quarry.operator.sort.ShardSortJobReconciler;
import dev.quarry.operator.sync.DatasetSyncReconciler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator process: the three reconcilers, leader election (a Lease in the operator's namespace, so two replicas
 * never act twice), JOSDK metrics through Micrometer on {@code /metrics}, and the health probes.
 */
public final class QuarryOperator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(QuarryOperator.class);

  private final Operator operator;
  private final ProbeServer probes;
  private final PrometheusMeterRegistry registry;

  private QuarryOperator(Operator operator, ProbeServer probes, PrometheusMeterRegistry registry) {
    this.operator = operator;
    this.probes = probes;
    this.registry = registry;
  }

  public static void main(String[] args) throws IOException {
    OperatorSettings settings = OperatorSettings.fromEnvironment(System.getenv());
    QuarryOperator running = start(new KubernetesClientBuilder().build(), settings, Clock.systemUTC());
    Runtime.getRuntime().addShutdownHook(new Thread(running::close, "quarry-operator-shutdown"));
  }

  /** Starts the operator on {@code client}; the caller closes it (tests start and stop several in one JVM). */
  public static QuarryOperator start(KubernetesClient client, OperatorSettings settings, Clock clock)
      throws IOException {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    Operator operator = new Operator(overrider -> {
      overrider.withKubernetesClient(client)
          .withCloseClientOnStop(false)
          .withMetrics(MicrometerMetrics.withoutPerResourceMetrics(registry))
          .withReconciliationTerminationTimeout(Duration.ofSeconds(10));
      if (settings.leaderElection()) {
        overrider.withLeaderElectionConfiguration(new LeaderElectionConfiguration(settings.leaseName(),
            settings.namespace(), LeaderElectionConfiguration.LEASE_DURATION_DEFAULT_VALUE,
            LeaderElectionConfiguration.RENEW_DEADLINE_DEFAULT_VALUE,
            LeaderElectionConfiguration.RETRY_PERIOD_DEFAULT_VALUE, settings.identity(), null,
            settings.exitOnLostLeadership()));
      }
    });
    operator.register(new ShardSortJobReconciler(client, settings.workers(), clock));
    operator.register(new DatasetSyncReconciler(client, settings.workers(), clock));
    operator.register(new NodeCacheReconciler(client, settings.agents(), clock));
    ProbeServer probes = new ProbeServer(settings.httpPort(), registry, operator::getRuntimeInfo);
    operator.start();
    LOG.info("started namespace={} leaderElection={} identity={} httpPort={}", settings.namespace(),
        settings.leaderElection(), settings.identity(), probes.port());
    return new QuarryOperator(operator, probes, registry);
  }

  public int httpPort() {
    return probes.port();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  @Override
  public void close() {
    operator.stop();
    probes.close();
    registry.close();
  }
}
