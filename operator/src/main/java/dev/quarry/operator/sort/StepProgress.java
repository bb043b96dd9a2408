package dev.quarry.operator.sort;

import dev.quarry.api.common.RequestCounts;
import dev.quarry.api.shardsort.PhaseMetrics;
import dev.quarry.api.shardsort.WorkerStatus;
import dev.quarry.operator.jobs.WorkerJson;
import dev.quarry.operator.jobs.WorkerPod;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What the pods of one step's Job tell: each index's state and counts, the step's metrics summed over the indexes
 * that finished, and the message of a failed index. Reads only termination messages; workers never write the resource.
 */
final class StepProgress {
  private final SortStep step;
  private final int workers;
  private final Map<Integer, List<WorkerPod>> podsByIndex;

  StepProgress(SortStep step, int workers, List<WorkerPod> pods) {
    this.step = step;
    this.workers = workers;
    this.podsByIndex = WorkerPod.byIndex(pods);
  }

  /** This step's result from each index that succeeded (the last successful attempt's). */
  List<PhaseReport> reports() {
    List<PhaseReport> reports = new ArrayList<>();
    for (List<WorkerPod> attempts : podsByIndex.values()) {
      attempts.stream().filter(WorkerPod::succeeded).reduce((a, b) -> b)
          .flatMap(this::reportIn)
          .ifPresent(reports::add);
    }
    return reports;
  }

  /**
   * This step's result in a pod's termination message: the message holds one result, or a list when the worker also
   * ran the step after its own ({@link SortStep#runByLastOfStepBefore()}), so the pods of one step may carry the next's.
   */
  private Optional<PhaseReport> reportIn(WorkerPod pod) {
    Stream<PhaseReport> results = WorkerJson.parse(pod.terminationMessage(), PhaseReport[].class)
        .map(Arrays::stream)
        .orElseGet(() -> WorkerJson.parse(pod.terminationMessage(), PhaseReport.class).stream());
    return results.filter(report -> step.command().equals(report.phase())).findFirst();
  }

  /** One entry per index, from 0 to workers - 1; indexes with no pod yet are Pending. */
  List<WorkerStatus> workers() {
    List<WorkerStatus> result = new ArrayList<>();
    for (int index = 0; index < workers; index++) {
      List<WorkerPod> attempts = podsByIndex.getOrDefault(index, List.of());
      if (attempts.isEmpty()) {
        result.add(new WorkerStatus(step.command(), index, "Pending", 0, null, null, null, null));
        continue;
      }
      WorkerPod last = attempts.get(attempts.size() - 1);
      Optional<PhaseReport> report = last.succeeded() ? reportIn(last) : Optional.empty();
      String message = last.failed() ? WorkerJson.lastLine(last.terminationMessage())
          : report.filter(r -> r.warnings() != null && !r.warnings().isEmpty())
              .map(r -> r.warnings().size() + " warnings, first: " + WorkerJson.bounded(r.warnings().get(0)))
              .orElse(null);
      result.add(new WorkerStatus(step.command(), index, last.phase(), attempts.size(),
          report.map(PhaseReport::shards).orElse(null), report.map(PhaseReport::records).orElse(null),
          report.map(PhaseReport::bytes).orElse(null), message));
    }
    return result;
  }

  /** The failed attempt's message: the worker's last log line, naming its index. */
  String failureMessage() {
    return podsByIndex.entrySet().stream()
        .flatMap(entry -> entry.getValue().stream().filter(WorkerPod::failed)
            .filter(pod -> pod.terminationMessage() != null)
            .map(pod -> step.command() + " worker " + entry.getKey() + ": "
                + WorkerJson.lastLine(pod.terminationMessage())))
        .reduce((a, b) -> b).orElse(null);
  }

  /** The step's metrics over {@code reports}: earliest start, latest end, sums, throughput over the wall time. */
  static PhaseMetrics metrics(List<PhaseReport> reports, String fallbackStart, String fallbackEnd) {
    String start = reports.stream().map(PhaseReport::startTime).filter(Objects::nonNull)
        .min(Comparator.comparing(Instant::parse)).orElse(fallbackStart);
    String end = reports.stream().map(PhaseReport::endTime).filter(Objects::nonNull)
        .max(Comparator.comparing(Instant::parse)).orElse(fallbackEnd);
    double elapsed = start == null || end == null ? 0
        : Math.max(Duration.between(Instant.parse(start), Instant.parse(end)).toMillis() / 1000.0, 0.001);
    long shards = reports.stream().mapToLong(PhaseReport::shards).sum();
    long records = reports.stream().mapToLong(PhaseReport::records).sum();
    long bytes = reports.stream().mapToLong(PhaseReport::bytes).sum();
    RequestCounts requests = reports.stream().map(PhaseReport::requests).filter(Objects::nonNull)
        .reduce(new RequestCounts(0, 0, 0, 0, 0), (a, b) -> new RequestCounts(a.head() + b.head(),
            a.list() + b.list(), a.get() + b.get(), a.put() + b.put(), a.delete() + b.delete()));
    return new PhaseMetrics(start, end, elapsed, shards, records, bytes,
        elapsed > 0 ? (long) (bytes / elapsed) : null, requests);
  }
}
