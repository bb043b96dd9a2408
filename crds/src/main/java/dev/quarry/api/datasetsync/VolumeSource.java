package dev.quarry.api.datasetsync;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.Patterns;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** The directory being versioned: a path inside a PersistentVolumeClaim. */
public record VolumeSource(
    @JsonPropertyDescription("Name of the PersistentVolumeClaim, in the resource's namespace.")
        @Required
        @Pattern(Patterns.DNS_SUBDOMAIN)
        String claimName,
    @JsonPropertyDescription("Directory inside the volume, relative to its root; empty for the whole volume.")
        @Default("")
        @Pattern("^$|^[^/].*$")
        String path) {}
