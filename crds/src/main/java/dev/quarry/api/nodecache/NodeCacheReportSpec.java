package dev.quarry.api.nodecache;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;

/** Which agent a report comes from; written once by the agent that creates the report. */
@JsonClassDescription("Which NodeCache and which node the report is about.")
public record NodeCacheReportSpec(
    @JsonPropertyDescription("The NodeCache this report is about.") @Required String nodeCache,
    @JsonPropertyDescription("The node whose agent writes this report.") @Required String node) {}
