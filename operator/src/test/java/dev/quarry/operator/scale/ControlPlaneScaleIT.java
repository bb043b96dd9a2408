package dev.quarry.operator.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.quarry.api.nodecache.CachePhase;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCacheStatus;
import dev.quarry.api.shardsort.ShardSortJob;
import dev.quarry.operator.testing.FakeKubelet;
import dev.quarry.operator.testing.Manifests;
import dev.quarry.testkit.KubeApi;
import dev.quarry.testkit.KubeApiExtension;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The control plane under load, on a real API server: simulated agents write their NodeCacheReports at the agents'
 * cadence while ShardSortJobs are created at once, and the operator runs as its own process with the chart's heap.
 * Checks the goals of docs/operations.md ("Scale of the control plane") and prints the table it shows. CI runs a
 * small load; {@code e2e/bench/control-plane.sh} runs the full one (1,000 agents, 100 jobs) through the properties
 * {@code quarry.scale.agents}, {@code quarry.scale.jobs} and {@code quarry.scale.seconds}.
 */
@ExtendWith(KubeApiExtension.class)
class ControlPlaneScaleIT {
  private static final Duration REPORT_INTERVAL = Duration.ofSeconds(30);
  private static final Duration STATUS_WRITE_INTERVAL = Duration.ofSeconds(10);
  private static final Duration REFLECTED_WITHIN = Duration.ofSeconds(15);
  private static final long RSS_LIMIT = 512L << 20;

  private final int agents = Integer.getInteger("quarry.scale.agents", 100);
  private final int jobs = Integer.getInteger("quarry.scale.jobs", 20);
  private final Duration load = Duration.ofSeconds(Integer.getInteger("quarry.scale.seconds", 70));

  @Test
  void nodeCacheStatusIsWrittenAtMostEvery10sOnlyWhenChangedAndWithin15sOfAReport(KubeApi api) throws Exception {
    KubernetesClient client = api.client();
    String operatorNamespace = api.createNamespace("quarry-system");
    String namespace = api.createNamespace("scale");
    new FakeKubelet(client).prepareNamespace(operatorNamespace);
    new FakeKubelet(client).prepareNamespace(namespace);
    try (OperatorProcess operator = OperatorProcess.start(api, operatorNamespace,
        Map.of("QUARRY_STORE_ENDPOINTS", "http://minio.storage.svc:9000",
            "QUARRY_NODECACHE_CREDENTIALS_SECRETS", "s3-credentials"))) {
      await().atMost(Duration.ofSeconds(120)).until(() -> operator.metrics() != null);
      NodeCache cache = client.resource(Manifests.example(client, "nodecache.yaml", NodeCache.class, null, "scale"))
          .create();
      DaemonSet daemonSet = await().atMost(Duration.ofSeconds(60)).until(() -> client.apps().daemonSets()
          .inNamespace(operatorNamespace).withName("quarry-agent-scale").get(), Objects::nonNull);
      daemonSet.setStatus(new DaemonSetStatusBuilder().withDesiredNumberScheduled(agents)
          .withCurrentNumberScheduled(agents).withNumberReady(agents).withNumberMisscheduled(0).build());
      client.resource(daemonSet).updateStatus();

      try (SimulatedAgents nodes = new SimulatedAgents(client, client.resource(cache).get());
          StatusChanges<NodeCache> cacheChanges = StatusChanges.watch(client.resources(NodeCache.class)
              .withName("scale"), c -> c.getStatus());
          StatusChanges<ShardSortJob> jobChanges = StatusChanges.watch(client.resources(ShardSortJob.class)
              .inNamespace(namespace), j -> j.getStatus())) {
        nodes.start(agents, REPORT_INTERVAL);
        await().atMost(Duration.ofSeconds(120)).until(() -> status(client).phase() == CachePhase.Ready);

        // Changes are counted from before the first count of writes to after the last, so that a write is never
        // counted without its change.
        cacheChanges.reset();
        String apiBefore = client.raw("/metrics");
        String operatorBefore = operator.metrics();
        Duration cpuBefore = operator.cpuTime();
        long reportWritesBefore = nodes.writes();
        Instant start = Instant.now();
        for (int index = 0; index < jobs; index++) {
          client.resource(Manifests.example(client, "shardsortjob-shuffle.yaml", ShardSortJob.class, namespace,
              "job-" + index)).create();
        }
        long maxRss = 0;
        Instant failedAt = null;
        Instant reflectedAt = null;
        while (Duration.between(start, Instant.now()).compareTo(load) < 0) {
          maxRss = Math.max(maxRss, operator.residentBytes());
          if (failedAt == null && Duration.between(start, Instant.now()).compareTo(load.dividedBy(2)) > 0) {
            nodes.fail(SimulatedAgents.node(agents / 2));
            failedAt = Instant.now();
          }
          if (failedAt != null && reflectedAt == null && status(client).phase() == CachePhase.Degraded) {
            reflectedAt = Instant.now();
          }
          Thread.sleep(250);
        }
        Duration elapsed = Duration.between(start, Instant.now());
        double minutes = elapsed.toMillis() / 60_000.0;
        String apiAfter = client.raw("/metrics");
        String operatorAfter = operator.metrics();
        Duration cpu = operator.cpuTime().minus(cpuBefore);
        long reportWrites = nodes.writes() - reportWritesBefore;
        Thread.sleep(2000); // the watch events of the last writes

        Map<String, Double> byVerb = delta(PrometheusText.sum(apiBefore, "apiserver_request_total",
            l -> l.get("verb")), PrometheusText.sum(apiAfter, "apiserver_request_total", l -> l.get("verb")));
        Map<String, Double> statusWrites = delta(statusWrites(apiBefore), statusWrites(apiAfter));
        Map<String, Double> reconciles = delta(reconciles(operatorBefore), reconciles(operatorAfter));
        long cacheWrites = Math.round(statusWrites.getOrDefault("nodecaches", 0.0));
        long jobWrites = Math.round(statusWrites.getOrDefault("shardsortjobs", 0.0));

        List<String> table = new ArrayList<>();
        table.add("| load | %d agents writing every %ds, %d ShardSortJobs created at once, %.1f min |".formatted(
            agents, REPORT_INTERVAL.toSeconds(), jobs, minutes));
        table.add("|---|---|");
        table.add("| API requests per minute, by verb | " + perMinute(byVerb, minutes) + " |");
        table.add("| report writes by the agents | %d (%.0f/min) |".formatted(reportWrites,
            reportWrites / minutes));
        table.add("| operator reconciles per minute | " + perMinute(reconciles, minutes) + " |");
        table.add("| NodeCache status writes | %d (%.1f/min); changes seen %d; shortest gap %s |".formatted(
            cacheWrites, cacheWrites / minutes, cacheChanges.changes(), cacheChanges.shortestGap()));
        table.add("| ShardSortJob status writes | %d for %d jobs; changes seen %d |".formatted(jobWrites, jobs,
            jobChanges.changes()));
        table.add("| a report's change in the NodeCache status after | %s |".formatted(
            reflectedAt == null ? "never" : Duration.between(failedAt, reflectedAt)));
        table.add("| operator CPU | %.2f cores (%.1f s in %.0f s) |".formatted(
            cpu.toMillis() / (double) elapsed.toMillis(), cpu.toMillis() / 1000.0, elapsed.toMillis() / 1000.0));
        table.add("| operator RSS, largest | %d MiB |".formatted(maxRss >> 20));
        String text = String.join("\n", table);
        System.out.println(text);
        Files.writeString(Path.of("target", "control-plane-scale.md"), text + "\n");

        assertThat(reflectedAt).as("a degraded node in the NodeCache status\n" + text).isNotNull();
        assertThat(Duration.between(failedAt, reflectedAt)).as(text).isLessThanOrEqualTo(REFLECTED_WITHIN);
        assertThat(cacheWrites).as("NodeCache status writes at most once per 10 s\n" + text)
            .isLessThanOrEqualTo(elapsed.toSeconds() / STATUS_WRITE_INTERVAL.toSeconds() + 1);
        assertThat(cacheChanges.shortestGap()).as(text)
            .isGreaterThanOrEqualTo(STATUS_WRITE_INTERVAL.minusMillis(500));
        assertThat(cacheWrites).as("no NodeCache status write without a change\n" + text)
            .isLessThanOrEqualTo(cacheChanges.changes());
        assertThat(jobWrites).as("no ShardSortJob status write without a change\n" + text)
            .isLessThanOrEqualTo(jobChanges.changes());
        assertThat(maxRss).as(text).isLessThanOrEqualTo(RSS_LIMIT);
      }
    }
  }

  private static NodeCacheStatus status(KubernetesClient client) {
    NodeCache cache = client.resources(NodeCache.class).withName("scale").get();
    return cache.getStatus() == null ? new NodeCacheStatus(null, null, null, CachePhase.Pending, null, null, null,
        null, null, null, null, null, null) : cache.getStatus();
  }

  /** Writes of the status subresource of Quarry's kinds, by resource. */
  private static Map<String, Double> statusWrites(String metrics) {
    return PrometheusText.sum(metrics, "apiserver_request_total", l -> "quarry.dev".equals(l.get("group"))
        && "status".equals(l.get("subresource")) && List.of("APPLY", "PATCH", "UPDATE").contains(l.get("verb"))
        ? l.get("resource") : null);
  }

  /** Reconciles started, by kind (JOSDK's counter, with or without its prefix). */
  private static Map<String, Double> reconciles(String metrics) {
    Map<String, Double> counts = new TreeMap<>();
    for (String name : List.of("operator_sdk_reconciliations_started_total", "reconciliations_started_total")) {
      PrometheusText.sum(metrics, name, l -> l.values().stream()
          .filter(v -> List.of("nodecache", "shardsortjob", "datasetsync").contains(v.toLowerCase(Locale.ROOT)))
          .findFirst().orElse(null)).forEach((kind, count) -> counts.merge(kind, count, Double::sum));
    }
    return counts;
  }

  private static Map<String, Double> delta(Map<String, Double> before, Map<String, Double> after) {
    Map<String, Double> delta = new TreeMap<>();
    after.forEach((key, value) -> delta.put(key, value - before.getOrDefault(key, 0.0)));
    delta.values().removeIf(value -> value < 0.5);
    return delta;
  }

  private static String perMinute(Map<String, Double> counts, double minutes) {
    List<String> parts = new ArrayList<>();
    counts.forEach((key, value) -> parts.add("%s %.0f".formatted(key, value / minutes)));
    return String.join(", ", parts);
  }

  /** Counts the changes of a status a watch sees, and the shortest time between two. */
  static final class StatusChanges<T extends HasMetadata> implements AutoCloseable {
    private final Map<String, Object> last = new ConcurrentHashMap<>();
    private final List<Instant> times = new CopyOnWriteArrayList<>();
    private final AtomicLong changes = new AtomicLong();
    private final java.util.function.Function<T, Object> status;
    private Watch watch;

    private StatusChanges(java.util.function.Function<T, Object> status) {
      this.status = status;
    }

    static <T extends HasMetadata> StatusChanges<T> watch(io.fabric8.kubernetes.client.dsl.Watchable<T> watchable,
        java.util.function.Function<T, Object> status) {
      StatusChanges<T> changes = new StatusChanges<>(status);
      changes.watch = watchable.watch(new Watcher<>() {
        @Override
        public void eventReceived(Action action, T resource) {
          changes.seen(resource);
        }

        @Override
        public void onClose(WatcherException cause) {}
      });
      return changes;
    }

    private void seen(T resource) {
      Object now = status.apply(resource);
      Object before = last.put(resource.getMetadata().getName(), now == null ? "" : now);
      if (before != null && !Objects.equals(before, now == null ? "" : now)) {
        changes.incrementAndGet();
        times.add(Instant.now());
      }
    }

    void reset() {
      changes.set(0);
      times.clear();
    }

    long changes() {
      return changes.get();
    }

    Duration shortestGap() {
      Duration shortest = Duration.ofDays(1);
      for (int i = 1; i < times.size(); i++) {
        Duration gap = Duration.between(times.get(i - 1), times.get(i));
        shortest = gap.compareTo(shortest) < 0 ? gap : shortest;
      }
      return shortest;
    }

    @Override
    public void close() {
      watch.close();
    }
  }
}
