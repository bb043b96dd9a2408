package dev.quarry.operator.sort;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.api.shardsort.ShardSortJobStatus;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** What a ShardSortJob's status changes add to the operator's metrics: each step and each end counted once. */
class SortMetricsTest {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final SortMetrics metrics = new SortMetrics(registry);

  @Test
  void aSucceededJobCountsItsRecordsBytesStepsAndDurationOnce() {
    ShardSortJobStatus extracting = status("""
        {"phase":"Extracting","startTime":"2026-11-22T01:00:00Z"}""");
    ShardSortJobStatus creating = status("""
        {"phase":"Creating","startTime":"2026-11-22T01:00:00Z","records":7990,
         "phases":{"extract":{"elapsedSeconds":55.0,"bytes":8000000},"plan":{"elapsedSeconds":2.0}}}""");
    ShardSortJobStatus succeeded = status("""
        {"phase":"Succeeded","startTime":"2026-11-22T01:00:00Z","completionTime":"2026-11-22T01:07:00Z",
         "records":7990,"phases":{"extract":{"elapsedSeconds":55.0,"bytes":8000000},"plan":{"elapsedSeconds":2.0},
         "create":{"elapsedSeconds":300.0,"bytes":7900000}}}""");
    metrics.changed(null, extracting);
    metrics.changed(extracting, creating);
    metrics.changed(creating, succeeded);
    metrics.changed(succeeded, succeeded);

    String scrape = registry.scrape();
    assertThat(scrape).contains(
        "quarry_runs_finished_total{kind=\"ShardSortJob\",result=\"Succeeded\"} 1.0",
        "quarry_runs_finished_total{kind=\"ShardSortJob\",result=\"Failed\"} 0.0",
        "quarry_sort_records_total 7990.0",
        "quarry_sort_bytes_total 8000000.0",
        "quarry_run_duration_seconds_bucket{kind=\"ShardSortJob\",result=\"Succeeded\",le=\"300.0\"} 0",
        "quarry_run_duration_seconds_bucket{kind=\"ShardSortJob\",result=\"Succeeded\",le=\"600.0\"} 1",
        "quarry_sort_step_duration_seconds_bucket{step=\"extract\",le=\"60.0\"} 1",
        "quarry_sort_step_duration_seconds_count{step=\"plan\"} 1",
        "quarry_sort_step_duration_seconds_count{step=\"create\"} 1");
  }

  @Test
  void aFailedJobCountsAsFailedAndSortsNothing() {
    ShardSortJobStatus failed = status("""
        {"phase":"Failed","startTime":"2026-11-22T01:00:00Z","completionTime":"2026-11-22T01:01:00Z",
         "records":100}""");
    metrics.changed(status("{\"phase\":\"Extracting\"}"), failed);
    assertThat(registry.scrape()).contains(
        "quarry_runs_finished_total{kind=\"ShardSortJob\",result=\"Failed\"} 1.0",
        "quarry_sort_records_total 0.0");
  }

  private static ShardSortJobStatus status(String json) {
    return new KubernetesSerialization().unmarshal(json, ShardSortJobStatus.class);
  }
}
