package dev.quarry.api.nodecache;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.Patterns;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;

/** How each node's agent decides which images to keep locally. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CachePolicy(
    @JsonPropertyDescription("Sliding window over which bytes read from each image's source are summed.")
        @Default("10m")
        @Pattern(Patterns.DURATION)
        String window,
    @JsonPropertyDescription("How often the agent measures traffic and decides.")
        @Default("30s")
        @Pattern(Patterns.DURATION)
        String interval,
    @JsonPropertyDescription("A new choice replaces the current one only if its value is this many percent higher,"
            + " so that the cache does not churn between images of similar traffic.")
        @Default("10")
        @Min(0)
        @Max(1000)
        Integer hysteresisPercent,
    @JsonPropertyDescription("Bandwidth cap of each copy into the cache, as a quantity per second (100Mi)."
            + " Unlimited when omitted.")
        @Pattern(Patterns.BYTE_SIZE)
        String copyBandwidth,
    @JsonPropertyDescription("Copies into node caches running at once across the whole cluster, so that warming"
            + " many nodes does not overload the shared source.")
        @Default("4")
        @Min(1)
        @Max(10000)
        Integer maxConcurrentCopies) {}
