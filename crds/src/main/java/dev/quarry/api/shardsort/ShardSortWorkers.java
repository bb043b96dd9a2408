package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.DocumentedSchema;
import dev.quarry.api.common.Patterns;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.kubernetes.api.model.ResourceRequirements;

/** The worker pods of each phase: how many, how much memory they may use, how often an index is retried. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ShardSortWorkers(
    @JsonPropertyDescription("Workers of the extract phase, which read the input shards.") PhaseWorkers extract,
    @JsonPropertyDescription("Workers of the create phase, which write the output shards.") PhaseWorkers create,
    @JsonPropertyDescription("Memory each worker may use for record data and metadata before it spills to scratch"
            + " storage, as a quantity. Keep it well under the pod's memory limit.")
        @Default("1Gi")
        @Pattern(Patterns.BYTE_SIZE)
        String memoryBudget,
    @JsonPropertyDescription("Object store requests each worker keeps in flight.")
        @Default("64")
        @Min(1)
        @Max(4096)
        Integer requestsInFlight,
    @JsonPropertyDescription("Retries of one failed worker index before the phase fails.")
        @Default("3")
        @Min(0)
        @Max(100)
        Integer retriesPerIndex,
    @JsonPropertyDescription("CPU and memory requests and limits of each worker pod.")
        @SchemaFrom(type = DocumentedSchema.Resources.class)
        ResourceRequirements resources) {}
