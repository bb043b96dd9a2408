package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.Policy;
import io.fabric8.generator.annotation.Default;

/** What the job does with each kind of problem in the input. */
public record ShardSortPolicies(
    @JsonPropertyDescription("A record name seen more than once (in one shard or across shards). ignore and warn keep"
            + " the first occurrence in input order and drop the others, so that the output loads in WebDataset.")
        @Default("warn")
        Policy duplicatedRecords,
    @JsonPropertyDescription("An input shard named by the template or list that does not exist.")
        @Default("abort")
        Policy missingShards,
    @JsonPropertyDescription("A key map line without a separator or with an invalid pattern; ignore and warn skip"
            + " the line.")
        @Default("abort")
        Policy keymapMalformedLine,
    @JsonPropertyDescription("A record whose name no key map pattern matches; ignore and warn drop the record.")
        @Default("abort")
        Policy keymapMissingKey,
    @JsonPropertyDescription("A record whose content key member is missing or cannot be parsed; ignore and warn"
            + " sort it after every record with a key.")
        @Default("abort")
        Policy contentKeyMissing) {}
