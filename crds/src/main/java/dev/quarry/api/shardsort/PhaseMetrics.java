package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.RequestCounts;

/** What one phase did, summed over its workers. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PhaseMetrics(
    @JsonPropertyDescription("When the phase started (RFC 3339).") String startTime,
    @JsonPropertyDescription("When the phase ended (RFC 3339).") String endTime,
    @JsonPropertyDescription("Wall time of the phase in seconds.") Double elapsedSeconds,
    @JsonPropertyDescription("Shards read (extract) or written (create).") Long shards,
    @JsonPropertyDescription("Records processed.") Long records,
    @JsonPropertyDescription("Bytes read (extract) or written (create).") Long bytes,
    @JsonPropertyDescription("Bytes per second over the phase's wall time.") Long bytesPerSecond,
    @JsonPropertyDescription("Object store requests, by kind.") RequestCounts requests) {}
