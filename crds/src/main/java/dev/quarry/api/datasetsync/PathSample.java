package dev.quarry.api.datasetsync;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import java.util.List;

/** How many paths there are, and the first few of them. */
public record PathSample(
    @JsonPropertyDescription("How many paths there are.") @Min(0) long count,
    @JsonPropertyDescription("The first of them in order, at most 5, each at most 512 characters (quarry sync"
        + " status --json on the folder lists them all).") @Size(max = 5) List<String> paths) {}
