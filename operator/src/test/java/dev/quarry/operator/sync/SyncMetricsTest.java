package dev.quarry.operator.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.api.datasetsync.DatasetSyncStatus;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** What DatasetSync runs add to the operator's metrics: bytes pushed and pulled as their status reports them. */
class SyncMetricsTest {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final SyncMetrics metrics = new SyncMetrics(registry);

  @Test
  void eachSucceededPushOrPullAddsWhatItMovedOnce() {
    DatasetSyncStatus running = status("{\"phase\":\"Running\",\"operation\":\"Push\"}");
    DatasetSyncStatus pushed = status("""
        {"phase":"Succeeded","operation":"Push","startTime":"2026-11-22T01:00:00Z",
         "completionTime":"2026-11-22T01:00:20Z","transferred":{"objects":12,"bytes":4096}}""");
    metrics.changed(null, running);
    metrics.changed(running, pushed);
    metrics.changed(pushed, pushed);
    // The next trigger's run ended before the operator saw it running: another end all the same.
    DatasetSyncStatus pushedAgain = status("""
        {"phase":"Succeeded","operation":"Push","startTime":"2026-11-22T02:00:00Z",
         "completionTime":"2026-11-22T02:00:05Z","transferred":{"objects":1,"bytes":100}}""");
    metrics.changed(pushed, pushedAgain);
    metrics.changed(null, status("""
        {"phase":"Succeeded","operation":"Status","transferred":{"objects":5,"bytes":5}}"""));

    assertThat(registry.scrape()).contains(
        "quarry_sync_bytes_total{operation=\"Push\"} 4196.0",
        "quarry_sync_objects_total{operation=\"Push\"} 13.0",
        "quarry_sync_bytes_total{operation=\"Pull\"} 0.0",
        "quarry_runs_finished_total{kind=\"DatasetSync\",result=\"Succeeded\"} 3.0",
        "quarry_run_duration_seconds_bucket{kind=\"DatasetSync\",result=\"Succeeded\",le=\"30.0\"} 2");
  }

  private static DatasetSyncStatus status(String json) {
    return new KubernetesSerialization().unmarshal(json, DatasetSyncStatus.class);
  }
}
