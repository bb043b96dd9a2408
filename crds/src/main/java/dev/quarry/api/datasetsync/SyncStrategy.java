package dev.quarry.api.datasetsync;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** How the worker found out which objects the remote holds. */
public record SyncStrategy(
    @JsonPropertyDescription("head (one HEAD per unknown object) or list (listing only the key ranges that matter).")
        String name,
    @JsonPropertyDescription("Why: the numbers behind the choice.") String reason) {}
