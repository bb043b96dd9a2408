package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/** How many worker pods one phase runs at once. */
public record PhaseWorkers(
    @JsonPropertyDescription("Number of worker pods (Job indexes) for the phase. The phase's work is split evenly"
            + " among them.")
        @Default("4")
        @Min(1)
        @Max(1000)
        Integer parallelism) {}
