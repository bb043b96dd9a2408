package dev.quarry.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.cache.agent.CacheAgent;
import dev.quarry.core.cache.agent.NodeReport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The agent's metrics as Prometheus reads them: what the chart's alerts and dashboard query. */
class AgentMetricsTest {
  @Test
  void decisionTimesAreAHistogramAndCapacityAndCopyFailuresAreThere() throws Exception {
    try (CacheAgent agent = new CacheAgent(null, null, Clock.systemUTC(), Duration.ofMinutes(1))) {
      AgentMetrics metrics = new AgentMetrics(agent, "pets");
      metrics.update(report(3_000_000));
      metrics.update(report(200_000_000));
      assertThat(metrics.scrape()).contains(
          "quarry_cache_decision_seconds_bucket{nodecache=\"pets\",le=\"0.005\"} 1",
          "quarry_cache_decision_seconds_bucket{nodecache=\"pets\",le=\"0.5\"} 2",
          "quarry_cache_decision_seconds_count{nodecache=\"pets\"} 2",
          "quarry_cache_capacity_bytes{nodecache=\"pets\"} 1.073741824E9",
          "quarry_cache_used_bytes{nodecache=\"pets\"} 9.66367641E8",
          "quarry_cache_copy_failures_total{nodecache=\"pets\"} 0.0");
    }
  }

  private static NodeReport report(long decisionNanos) {
    return new NodeReport(Instant.now(), List.of(), 1L << 30, 966_367_641L, 0, List.of(), decisionNanos);
  }
}
