package dev.quarry.operator.sort;

import dev.quarry.api.common.RequestCounts;
import java.util.List;
import java.util.Map;

/**
 * The JSON result of one {@code quarry sort <step>} index (core's PhaseResult), as its termination message carries it.
 * Only the fields the status needs; unknown ones are ignored so that workers may add more.
 */
record PhaseReport(String phase, int index, String startTime, String endTime, double elapsedSeconds, long shards,
    long records, long bytes, RequestCounts requests, List<String> warnings, Map<String, Object> details) {}
