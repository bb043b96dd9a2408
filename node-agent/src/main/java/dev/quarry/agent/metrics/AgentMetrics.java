package dev.quarry.agent.metrics;

import dev.quarry.core.cache.agent.CacheAgent;
import dev.quarry.core.cache.agent.NodeReport;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The agent's Prometheus metrics: bytes read per image from its source and its local copy (counters, straight from
 * the kernel's per-device counts), the hit ratio over the window, copies made and failed, evictions, cache space and
 * capacity, and how long each pass's cache decisions took (a histogram).
 */
public final class AgentMetrics {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final CacheAgent agent;
  private final AtomicReference<NodeReport> last = new AtomicReference<>();
  private final Set<String> imagesRegistered = new HashSet<>();
  private final Timer decisions;

  public AgentMetrics(CacheAgent agent, String nodeCache) {
    this.agent = agent;
    registry.config().commonTags("nodecache", nodeCache);
    FunctionCounter.builder("quarry_cache_copies", agent, CacheAgent::copiesCompleted)
        .description("Images copied into the cache and verified").register(registry);
    FunctionCounter.builder("quarry_cache_copy_failures", agent, CacheAgent::copiesFailed)
        .description("Copies that failed (read errors, checksums that did not match), each attempt once")
        .register(registry);
    FunctionCounter.builder("quarry_cache_evictions", agent, CacheAgent::evictions)
        .description("Local copies dropped from the cache").register(registry);
    Gauge.builder("quarry_cache_used_bytes", last, r -> r.get() == null ? 0 : r.get().usedBytes())
        .description("Cache space in use, including evicted copies still held open").baseUnit("bytes")
        .register(registry);
    Gauge.builder("quarry_cache_free_bytes", last,
            r -> r.get() == null ? 0 : Math.max(0, r.get().capacityBytes() - r.get().usedBytes()))
        .description("Cache space left within the capacity").baseUnit("bytes").register(registry);
    Gauge.builder("quarry_cache_capacity_bytes", last, r -> r.get() == null ? 0 : r.get().capacityBytes())
        .description("Cache space the NodeCache allows on this node").baseUnit("bytes").register(registry);
    Gauge.builder("quarry_cache_hit_ratio", last, AgentMetrics::hitRatio)
        .description("Share of bytes read from local copies over the window").register(registry);
    decisions = Timer.builder("quarry_cache_decision").description("Time each pass's cache decisions took")
        .serviceLevelObjectives(Duration.ofNanos(100_000), Duration.ofMillis(1), Duration.ofMillis(5),
            Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(500),
            Duration.ofSeconds(1), Duration.ofSeconds(5))
        .register(registry);
  }

  /** Records the latest pass, registering counters for images seen for the first time. */
  public synchronized void update(NodeReport report) {
    last.set(report);
    decisions.record(report.decisionNanos(), TimeUnit.NANOSECONDS);
    for (var image : report.images()) {
      if (imagesRegistered.add(image.name())) {
        String name = image.name();
        FunctionCounter.builder("quarry_cache_read_bytes", agent, a -> a.lifetimeTraffic(name).sourceBytes())
            .tags(Tags.of("image", name, "layer", "source")).baseUnit("bytes")
            .description("Bytes read from each image, by layer").register(registry);
        FunctionCounter.builder("quarry_cache_read_bytes", agent, a -> a.lifetimeTraffic(name).localBytes())
            .tags(Tags.of("image", name, "layer", "local")).baseUnit("bytes")
            .description("Bytes read from each image, by layer").register(registry);
      }
    }
  }

  /** The Prometheus text exposition. */
  public String scrape() {
    return registry.scrape();
  }

  private static double hitRatio(AtomicReference<NodeReport> last) {
    NodeReport report = last.get();
    if (report == null || report.sourceBytes() + report.localBytes() == 0) {
      return 0;
    }
    return (double) report.localBytes() / (report.sourceBytes() + report.localBytes());
  }
}
