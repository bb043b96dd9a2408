package dev.quarry.api.datasetsync;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** The paths a Status run found different, counted, with the first few of each kind. */
public record SyncChanges(
    @JsonPropertyDescription("Files and links on the volume that the ref's version lacks.") PathSample added,
    @JsonPropertyDescription("Files and links in both with another content, target or mode (folders: mode).")
        PathSample modified,
    @JsonPropertyDescription("Paths of the ref's version the volume lacks; a folder lacked whole ends in '/'.")
        PathSample deleted,
    @JsonPropertyDescription("Files on the volume whose content the remote lacks (what a Push would upload).")
        PathSample notOnRemote) {}
