package dev.quarry.api.datasetsync;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.DocumentedSchema;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import dev.quarry.api.common.Amount;
import dev.quarry.api.common.RequestCounts;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/** What the last run of a DatasetSync found and did. */
@JsonClassDescription("What the last run found and did, and its conditions.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DatasetSyncStatus(
    @JsonPropertyDescription("The generation of the spec this status describes.") Long observedGeneration,
    @JsonPropertyDescription("Value of the quarry.dev/trigger annotation the last run was started for.")
        String observedTrigger,
    @JsonPropertyDescription("Pending, Running, Succeeded or Failed.") SyncPhase phase,
    @JsonPropertyDescription("The operation of the last run.") SyncOperation operation,
    @JsonPropertyDescription("Root digest of the version on the volume (Status, Push) or pulled (Pull).")
        String version,
    @JsonPropertyDescription("Files in the version.") Long files,
    @JsonPropertyDescription("Bytes in the version.") Long bytes,
    @JsonPropertyDescription("Objects of the remote version missing on the volume.") Amount missingLocal,
    @JsonPropertyDescription("Objects on the volume missing in the remote.") Amount missingRemote,
    @JsonPropertyDescription("Objects uploaded (Push), downloaded (Pull) or deleted (Gc).") Amount transferred,
    @JsonPropertyDescription("Objects Gc found unreachable (deleted unless dry run).") Amount unreachable,
    @JsonPropertyDescription("Object store requests of the last run, by kind.") RequestCounts requests,
    @JsonPropertyDescription("How the remote's contents were found out.") SyncStrategy strategy,
    @JsonPropertyDescription("The paths that differ (Status): counts, and the first few paths of each kind.")
        SyncChanges changes,
    @JsonPropertyDescription("When the last run started (RFC 3339).") String startTime,
    @JsonPropertyDescription("When the last run ended (RFC 3339).") String completionTime,
    @JsonPropertyDescription("Ready is True when the last run succeeded for the current generation.")
        @SchemaFrom(type = DocumentedSchema.Condition[].class)
        List<Condition> conditions) {}
