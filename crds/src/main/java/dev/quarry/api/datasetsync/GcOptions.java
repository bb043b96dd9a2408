package dev.quarry.api.datasetsync;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.Patterns;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;

/** How Gc sweeps the remote. */
public record GcOptions(
    @JsonPropertyDescription("Report what would be deleted and delete nothing. Set to false to delete.")
        @Default("true")
        Boolean dryRun,
    @JsonPropertyDescription("Never delete an object younger than this, so pushes in flight are safe.")
        @Default("24h")
        @Pattern(Patterns.DURATION)
        String gracePeriod,
    @JsonPropertyDescription("Keep every version that a ref log entry younger than this names, so that a ref moved"
        + " by mistake can be pulled back by its root digest (quarry sync log lists them). 0s keeps only what refs"
        + " and pushes in flight reach. A duration such as 720h (30 days).")
        @Default("720h")
        @Pattern(Patterns.DURATION)
        String retention) {}
