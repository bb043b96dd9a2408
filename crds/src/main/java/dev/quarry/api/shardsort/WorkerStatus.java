package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** One worker index of one phase. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WorkerStatus(
    @JsonPropertyDescription("The phase: extract, plan or create.") String phase,
    @JsonPropertyDescription("The Job completion index.") Integer index,
    @JsonPropertyDescription("Pending, Running, Succeeded or Failed.") String state,
    @JsonPropertyDescription("Pods started for this index, retries included.") Integer attempts,
    @JsonPropertyDescription("Shards done.") Long shards,
    @JsonPropertyDescription("Records done.") Long records,
    @JsonPropertyDescription("Bytes done.") Long bytes,
    @JsonPropertyDescription("The worker's last message, for a failure the error it reported.") String message) {}
