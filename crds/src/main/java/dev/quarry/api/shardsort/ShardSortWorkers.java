package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.DocumentedSchema;
import dev.quarry.api.common.Patterns;
import dev.quarry.api.common.WorkerPlacement;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/**
 * The worker pods of each phase: how many, how much memory they may use, how often an index is retried, and where
 * they run.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ShardSortWorkers(
    @JsonPropertyDescription("Workers of the extract phase, which read the input shards.") PhaseWorkers extract,
    @JsonPropertyDescription("Workers of the create phase, which write the output shards.") PhaseWorkers create,
    @JsonPropertyDescription("Memory each worker process may use, as a quantity: its heap is sized from it, and it"
            + " spills to scratch storage past it. The JVM takes about 96 MiB more. Unset: 80% of the worker's memory"
            + " limit (resources.limits.memory), or of the node's memory without one. Set it at most the limit less"
            + " 96 MiB.")
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
        ResourceRequirements resources,
    @JsonPropertyDescription(WorkerPlacement.NODE_SELECTOR) Map<String, String> nodeSelector,
    @JsonPropertyDescription(WorkerPlacement.TOLERATIONS)
        @SchemaFrom(type = DocumentedSchema.Toleration[].class)
        List<Toleration> tolerations,
    @JsonPropertyDescription(WorkerPlacement.AFFINITY)
        @SchemaFrom(type = DocumentedSchema.Affinity.class)
        Affinity affinity,
    @JsonPropertyDescription(WorkerPlacement.PRIORITY_CLASS_NAME)
        @Pattern(Patterns.DNS_SUBDOMAIN)
        @Size(max = 253)
        String priorityClassName) implements WorkerPlacement {}
