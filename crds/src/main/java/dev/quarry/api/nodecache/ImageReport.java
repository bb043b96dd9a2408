package dev.quarry.api.nodecache;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** One image on one node: where it is served from, its traffic, and why the agent decided what it did. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ImageReport(
    @JsonPropertyDescription("The image's name.") String name,
    @JsonPropertyDescription("Pending, Source, Copying, Cached or Failed.") ImageState state,
    @JsonPropertyDescription("Size of the image in bytes.") Long sizeBytes,
    @JsonPropertyDescription("Bytes read from the source over the policy window.") Long bytesReadSource,
    @JsonPropertyDescription("Bytes read from the local copy over the policy window.") Long bytesReadLocal,
    @JsonPropertyDescription("Progress of the copy into the cache, as a percentage, while Copying.") Integer copyPercent,
    @JsonPropertyDescription("Why the image is or is not in the cache, in words (pinned; hot: 12Gi read in 10m;"
            + " does not fit: 40Gi needed, 3Gi free).")
        String reason,
    @JsonPropertyDescription("The last error about this image, with what to do about it.") String message) {}
