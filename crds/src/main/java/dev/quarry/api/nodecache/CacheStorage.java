package dev.quarry.api.nodecache;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.Patterns;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** The node-local directory that holds cached copies of images, and how much of it the cache may use. */
@ValidationRule(value = "!has(self.directory) || self.directory" + Patterns.MATCHES_NORMALIZED_ABSOLUTE_PATH,
    fieldPath = ".directory", message = "directory" + Patterns.NORMALIZED_ABSOLUTE_PATH_MESSAGE)
public record CacheStorage(
    @JsonPropertyDescription("Directory on each node for cached images; the agent keeps each NodeCache's copies in"
            + " a folder of its own in it, <directory>/<nodecache>. It must lie under one of the cache roots the"
            + " cluster admin allows (chart value nodeCache.cacheRoots, default /var/lib/quarry).")
        @Default("/var/lib/quarry/cache")
        @Size(max = 1024)
        String directory,
    @JsonPropertyDescription("Space the cache may use: a quantity (500Gi) or a percentage of the directory's"
            + " filesystem (80%).")
        @Required
        @Pattern(Patterns.BYTE_SIZE_OR_PERCENT)
        String capacity) {}
