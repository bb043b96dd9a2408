package dev.quarry.api.nodecache;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.DocumentedSchema;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/** A summary of every node's agent report; per-node detail lives in the agents' own objects. */
@JsonClassDescription("A summary of every selected node's report, and the conditions.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeCacheStatus(
    @JsonPropertyDescription("The generation of the spec this status describes.") Long observedGeneration,
    @JsonPropertyDescription("The generation of the last spec the operator accepted (every host path under the"
        + " admin's roots, the endpoint allowed, no path another NodeCache holds). The agents act only on a spec of"
        + " this generation: while a newer one is pending or refused they keep the last accepted one.")
        Long acceptedGeneration,
    @JsonPropertyDescription("The host paths of the spec of acceptedGeneration, which its agents use: the NodeCache"
        + " holds them against other NodeCaches beside those of its current spec.") AcceptedPaths acceptedPaths,
    @JsonPropertyDescription("Pending, Ready or Degraded.") CachePhase phase,
    @JsonPropertyDescription("Nodes whose agent mounts every image, as ready/selected.") String nodes,
    @JsonPropertyDescription("Nodes selected for the agent.") Integer nodesSelected,
    @JsonPropertyDescription("Nodes whose agent mounts every image.") Integer nodesReady,
    @JsonPropertyDescription("Local copies across all nodes.") Integer cachedCopies,
    @JsonPropertyDescription("Bytes read from local copies over the window, all nodes.") Long bytesReadLocal,
    @JsonPropertyDescription("Bytes read from sources over the window, all nodes.") Long bytesReadSource,
    @JsonPropertyDescription("Share of bytes served locally over the window, as a percentage (87%).")
        String hitRatio,
    @JsonPropertyDescription("Each image across all nodes.") List<ImageSummary> images,
    @JsonPropertyDescription("Ready is True when every selected node mounts every image.")
        @SchemaFrom(type = DocumentedSchema.Condition[].class)
        List<Condition> conditions) {}
