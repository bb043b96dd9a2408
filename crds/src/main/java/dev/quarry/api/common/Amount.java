package dev.quarry.api.common;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** A number of objects (files, blobs, shards) and their total size. */
public record Amount(
    @JsonPropertyDescription("Number of objects.") long objects,
    @JsonPropertyDescription("Total size in bytes.") long bytes) {}
