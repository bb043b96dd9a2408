package dev.quarry.api.datasetsync;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import java.util.List;

/** What Pull materializes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PullOptions(
    @JsonPropertyDescription("The version to pull: a ref name or a root digest (sha256:...). Defaults to spec.ref.")
        @Pattern("^(sha256:[a-f0-9]{64}|[A-Za-z0-9][A-Za-z0-9._-]{0,127})$")
        String version,
    @JsonPropertyDescription("Glob patterns of paths to pull (** crosses directories), for example images/**/*.jpg."
            + " Only the manifests and the selected files are fetched. Empty pulls everything.")
        @Size(max = 256)
        List<String> include,
    @JsonPropertyDescription("Delete files on the volume that are not in the version (within the included paths).")
        @Default("false")
        Boolean deleteExtra,
    @JsonPropertyDescription("Replace files on the volume that were edited since they were last pulled or pushed"
            + " (their content is neither the version's nor the one last synced). Without it the pull refuses and"
            + " names those files, and nothing is written.")
        @Default("false")
        Boolean force) {}
