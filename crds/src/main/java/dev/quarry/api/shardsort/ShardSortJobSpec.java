package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.common.Patterns;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** Sort or shuffle a dataset of archive shards across all its shards, and reshard it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.output.template) || self.order.kind == 'keymap'",
    message = "output.template is required unless order.kind is keymap")
public record ShardSortJobSpec(
    @JsonPropertyDescription("The object store holding the input, the output and the scratch data.")
        @Required
        ObjectStore store,
    @JsonPropertyDescription("The input shards.") @Required ShardInput input,
    @JsonPropertyDescription("The output shards.") @Required ShardOutput output,
    @JsonPropertyDescription("The order of records across the output.") @Required ShardOrder order,
    @JsonPropertyDescription("What to do with problems in the input.") ShardSortPolicies policies,
    @JsonPropertyDescription("The worker pods.") ShardSortWorkers workers,
    @JsonPropertyDescription("Prefix for intermediate data, removed when the job ends. Defaults to"
            + " .quarry-scratch/<namespace>/<name>/ in the output bucket.")
        @Pattern(Patterns.S3_URL)
        String scratch,
    @JsonPropertyDescription("Plan the output and report it in the status, without writing any shard.")
        @Default("false")
        Boolean dryRun,
    @JsonPropertyDescription("Set to true to stop the job: running workers are deleted, scratch data is removed,"
            + " shards already written are kept but no manifest is committed.")
        @Default("false")
        Boolean abort) {}
