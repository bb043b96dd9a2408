package dev.quarry.api.nodecache;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.Patterns;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** One dataset disk image (squashfs), mounted at {@code <mountRoot>/<name>} on every selected node. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CacheImage(
    @JsonPropertyDescription("Name of the image, also its directory under the mount root.")
        @Required
        @Size(min = 1, max = 63)
        @Pattern(Patterns.DNS_LABEL)
        String name,
    @JsonPropertyDescription("Where the image is: a normalized absolute path on shared storage mounted on every"
            + " node (/mnt/nfs/imagenet.sqfs), a regular file under one of the source roots the cluster admin allows"
            + " (chart value nodeCache.sourceRoots, default /mnt/nfs), reached without a symbolic link or a mount on"
            + " the way; or an S3 URL, downloaded into the cache before its first mount.")
        @Required
        @Pattern(CacheImage.SOURCE)
        String source,
    @JsonPropertyDescription("SHA-256 of the image file; every copy is verified against it. Required for S3"
            + " sources.")
        @Pattern(Patterns.SHA256_DIGEST)
        String checksum,
    @JsonPropertyDescription("Keep this image in the cache whatever its traffic, before any unpinned image.")
        @Default("false")
        Boolean pinned,
    @JsonPropertyDescription("Tie-breaker between images of equal measured value: higher is kept first.")
        @Default("0")
        @Min(0)
        @Max(1000)
        Integer priority) {
  /** A {@link Patterns#NORMALIZED_ABSOLUTE_PATH} or an S3 URL of an object. */
  static final String SOURCE = "^((/" + Patterns.PATH_SEGMENT + ")+|s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]/.+)$";
}
