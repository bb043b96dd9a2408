package dev.quarry.api.nodecache;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.DocumentedSchema;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/** One agent's view of one NodeCache on its node. */
@JsonClassDescription("What the agent mounts and caches on its node for the NodeCache, and why.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeCacheReportStatus(
    @JsonPropertyDescription("The generation of the NodeCache spec the agent applied.") Long observedGeneration,
    @JsonPropertyDescription("Ready when every image is mounted, Degraded when some cannot be, else Pending.")
        CachePhase phase,
    @JsonPropertyDescription("When the agent last wrote this report (RFC 3339).") String lastReportTime,
    @JsonPropertyDescription("Images mounted (from their source or a local copy).") Integer mounted,
    @JsonPropertyDescription("Images served from a local copy.") Integer cached,
    @JsonPropertyDescription("Cache space in use, including space freed but still held by open files, as a"
            + " quantity (12Gi).")
        String cacheUsed,
    @JsonPropertyDescription("Cache space in use in bytes.") Long cacheUsedBytes,
    @JsonPropertyDescription("Cache capacity in bytes, after resolving a percentage.") Long cacheCapacityBytes,
    @JsonPropertyDescription("Bytes read from local copies over the policy window.") Long bytesReadLocal,
    @JsonPropertyDescription("Bytes read from sources over the policy window.") Long bytesReadSource,
    @JsonPropertyDescription("Share of bytes served locally over the window, as a percentage (87%).")
        String hitRatio,
    @JsonPropertyDescription("Each image on this node.") List<ImageReport> images,
    @JsonPropertyDescription("The latest cache changes, newest last.") List<CacheDecision> decisions,
    @JsonPropertyDescription("Ready is True when every image is mounted.")
        @SchemaFrom(type = DocumentedSchema.Condition[].class)
        List<Condition> conditions) {}
