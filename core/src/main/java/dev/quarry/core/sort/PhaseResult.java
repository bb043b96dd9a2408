package dev.quarry.core.sort;

import dev.quarry.core.store.RequestTotals;
import java.util.List;
import java.util.Map;

/**
 * The JSON result of one phase index, printed by the command and kept in scratch for the operator: when it ran, what
 * it did, what it cost in requests, and the problems met under ignore or warn policies.
 */
public record PhaseResult(String phase, int index, int count, String startTime, String endTime, double elapsedSeconds,
    long shards, long records, long bytes, long bytesPerSecond, RequestTotals requests, Map<String, Long> problems,
    List<String> warnings, Map<String, Object> details) {}
