package dev.quarry.operator.sync;

import dev.quarry.api.common.Amount;
import dev.quarry.api.common.RequestCounts;
import dev.quarry.api.datasetsync.SyncChanges;
import dev.quarry.api.datasetsync.SyncStrategy;
import java.util.List;

/**
 * The JSON result of {@code quarry sync status|push|pull|gc} (core's SyncResult), as the worker's termination message
 * carries it. Only the fields the status shows; the rest is ignored.
 */
record SyncReport(String operation, String ref, String version, Long files, Long bytes, Amount missingLocal,
    Amount missingRemote, Amount transferred, Amount unreachable, RequestCounts requests, SyncStrategy strategy,
    Long failures, List<String> warnings, String startTime, String endTime, SyncChanges changes) {}
