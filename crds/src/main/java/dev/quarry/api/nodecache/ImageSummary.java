package dev.quarry.api.nodecache;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** One image across all nodes. */
public record ImageSummary(
    @JsonPropertyDescription("The image's name.") String name,
    @JsonPropertyDescription("Nodes where the image is mounted.") int mountedNodes,
    @JsonPropertyDescription("Nodes serving the image from a local copy.") int cachedNodes,
    @JsonPropertyDescription("Bytes read from the local copies, over the policy window.") long bytesReadLocal,
    @JsonPropertyDescription("Bytes read from the source, over the policy window.") long bytesReadSource) {}
