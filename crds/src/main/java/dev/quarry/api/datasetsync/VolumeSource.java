package dev.quarry.api.datasetsync;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.Patterns;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** The directory being versioned: a path inside a PersistentVolumeClaim. */
@ValidationRule(value = "!has(self.path) || self.path == '' || self.path.matches('" + Patterns.NORMALIZED_RELATIVE_PATH
    + "')", fieldPath = ".path",
    message = "path must be a folder inside the volume: relative, without '.', '..' or empty segments")
public record VolumeSource(
    @JsonPropertyDescription("Name of the PersistentVolumeClaim, in the resource's namespace.")
        @Required
        @Pattern(Patterns.DNS_SUBDOMAIN)
        String claimName,
    @JsonPropertyDescription("Directory inside the volume, relative to its root, without '.' or '..' segments;"
            + " empty for the whole volume. The worker mounts only this folder of the volume.")
        @Default("")
        @Size(max = 1024)
        String path) {}
