package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Metrics of each phase that has started. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ShardSortPhases(
    @JsonPropertyDescription("The extract phase.") PhaseMetrics extract,
    @JsonPropertyDescription("The plan phase.") PhaseMetrics plan,
    @JsonPropertyDescription("The create phase.") PhaseMetrics create) {}
