package dev.quarry.api.common;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Object store requests made, by kind. Multipart upload calls count as PUT. */
public record RequestCounts(
    @JsonPropertyDescription("HEAD requests.") long head,
    @JsonPropertyDescription("LIST requests (one per page).") long list,
    @JsonPropertyDescription("GET requests, ranged or whole.") long get,
    @JsonPropertyDescription("PUT requests, including multipart initiate, part and complete.") long put,
    @JsonPropertyDescription("DELETE requests.") long delete) {}
