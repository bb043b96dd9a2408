package dev.quarry.api.nodecache;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.Patterns;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** The node-local directory that holds cached copies of images, and how much of it the cache may use. */
public record CacheStorage(
    @JsonPropertyDescription("Directory on each node for cached images.")
        @Default("/var/lib/quarry/cache")
        @Pattern(Patterns.ABSOLUTE_PATH)
        String directory,
    @JsonPropertyDescription("Space the cache may use: a quantity (500Gi) or a percentage of the directory's"
            + " filesystem (80%).")
        @Required
        @Pattern(Patterns.BYTE_SIZE_OR_PERCENT)
        String capacity) {}
