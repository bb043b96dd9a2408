package dev.quarry.core.sort.plan;

import dev.quarry.core.sort.input.InputShard;
import java.util.List;

/**
 * The plan, written last by the plan phase: every input shard (their indexes are what record entries point at),
 * every output shard in order, the output format, and the output templates (one unless the order is a key map).
 */
public record PlanSummary(List<InputShard> inputs, List<PlannedShard> shards, String outputFormat,
    List<String> templates, long records, long bytes, long duplicatesDropped, long recordsDropped) {}
