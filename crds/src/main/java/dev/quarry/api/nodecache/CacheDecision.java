package dev.quarry.api.nodecache;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** One change the agent made to its cache, kept in a short history so that a person can see why. */
public record CacheDecision(
    @JsonPropertyDescription("When the decision was made (RFC 3339).") String time,
    @JsonPropertyDescription("The image concerned.") String image,
    @JsonPropertyDescription("Cache (copy and switch to the local copy) or Evict (drop the local copy).")
        String action,
    @JsonPropertyDescription("Why, in words.") String reason) {}
