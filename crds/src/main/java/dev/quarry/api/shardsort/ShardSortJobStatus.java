package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.DocumentedSchema;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/** What the operator observed of a ShardSortJob. */
@JsonClassDescription("What the operator observed of the job: its phase, progress, per-phase metrics and conditions.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ShardSortJobStatus(
    @JsonPropertyDescription("The generation of the spec this status describes.") Long observedGeneration,
    @JsonPropertyDescription("Where the job is: Pending, Extracting, Planning, Creating, Succeeded, Failed or"
            + " Aborted.")
        ShardSortPhase phase,
    @JsonPropertyDescription("Progress of the whole job, as a percentage (42%).") String progress,
    @JsonPropertyDescription("Records found in the input.") Long records,
    @JsonPropertyDescription("Output shards created and planned, as created/total.") String shards,
    @JsonPropertyDescription("Output shards created.") Long shardsCreated,
    @JsonPropertyDescription("Output shards planned.") Long shardsTotal,
    @JsonPropertyDescription("When the job started (RFC 3339).") String startTime,
    @JsonPropertyDescription("When the job ended (RFC 3339).") String completionTime,
    @JsonPropertyDescription("URL of the committed manifest (shard names, sizes, record counts, SHA-256).")
        String manifest,
    @JsonPropertyDescription("Metrics of each phase.") ShardSortPhases phases,
    @JsonPropertyDescription("Each worker index of the current or last phase.") List<WorkerStatus> workers,
    @JsonPropertyDescription("Ready is True when the output is committed; its reason and message say why not.")
        @SchemaFrom(type = DocumentedSchema.Condition[].class)
        List<Condition> conditions) {}
