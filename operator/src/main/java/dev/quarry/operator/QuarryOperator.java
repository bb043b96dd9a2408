package dev.quarry.operator;

import dev.quarry.operator.cache.NodeCacheReconciler;
import dev.quarry.operator.runtime.OperatorSettings;
import dev.quarry.operator.runtime.ProbeServer;
import dev.quarry.operator.sort.ShardSortJobReconciler;
import dev.quarry.operator.sync.DatasetSyncReconciler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
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
import java.util.concurrent.atomic.AtomicBoolean;
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
  private final AtomicBoolean stopping;

  private QuarryOperator(Operator operator, ProbeServer probes, PrometheusMeterRegistry registry,
      AtomicBoolean stopping) {
    this.operator = operator;
    this.probes = probes;
    this.registry = registry;
    this.stopping = stopping;
  }

  public static void main(String[] args) throws IOException {
    OperatorSettings settings;
    try {
      settings = OperatorSettings.fromEnvironment(System.getenv());
    } catch (IllegalArgumentException e) {
      // A configuration mistake: one line that names it, not a stack trace.
      LOG.error(e.getMessage());
      System.exit(2);
      return;
    }
    QuarryOperator running = start(new KubernetesClientBuilder().build(), settings, Clock.systemUTC());
    Runtime.getRuntime().addShutdownHook(new Thread(running::close, "quarry-operator-shutdown"));
  }

  /** Starts the operator on {@code client}; the caller closes it (tests start and stop several in one JVM). */
  public static QuarryOperator start(KubernetesClient client, OperatorSettings settings, Clock clock)
      throws IOException {
    AtomicBoolean stopping = new AtomicBoolean();
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
            LeaderElectionConfiguration.RETRY_PERIOD_DEFAULT_VALUE, settings.identity(),
            new LeaderCallbacks(() -> { }, () -> lostLeadership(settings, stopping), leader -> { }), false));
      }
    });
    // The namespaced kinds (and their Jobs and pods) in the watched namespaces only; NodeCaches are cluster-scoped.
    operator.register(new ShardSortJobReconciler(client, settings.workers(), clock, registry),
        overrider -> watched(overrider, settings));
    operator.register(new DatasetSyncReconciler(client, settings.workers(), clock, registry),
        overrider -> watched(overrider, settings));
    operator.register(new NodeCacheReconciler(client, settings.agents(), clock, registry));
    ProbeServer probes = new ProbeServer(settings.httpPort(), registry, operator::getRuntimeInfo);
    operator.start();
    LOG.info("started namespace={} leaderElection={} identity={} httpPort={} watchNamespaces={}",
        settings.namespace(), settings.leaderElection(), settings.identity(), probes.port(),
        settings.watchNamespaces().isEmpty() ? "all" : String.join(",", settings.watchNamespaces()));
    return new QuarryOperator(operator, probes, registry, stopping);
  }

  private static void watched(ControllerConfigurationOverrider<?> overrider, OperatorSettings settings) {
    if (!settings.watchNamespaces().isEmpty()) {
      overrider.settingNamespaces(settings.watchNamespaces());
    }
  }

  /**
   * Losing the lease while running means another replica may act now: this one exits and its pod restarts as a
   * standby. Not while stopping: JOSDK reports the lease it gives up then too, and exiting from inside the shutdown
   * hook would hang the JVM.
   */
  private static void lostLeadership(OperatorSettings settings, AtomicBoolean stopping) {
    if (settings.exitOnLostLeadership() && !stopping.get()) {
      LOG.error("lost-leadership identity={} action=exit", settings.identity());
      new Thread(() -> System.exit(1), "quarry-operator-exit").start();
    }
  }

  public int httpPort() {
    return probes.port();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  @Override
  public void close() {
    stopping.set(true);
    operator.stop();
    probes.close();
    registry.close();
  }
}
