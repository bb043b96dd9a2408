package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.Patterns;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** Where the output shards go, in which format, and how large each one is. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "[has(self.shardSize), has(self.recordsPerShard), has(self.shardCount)].filter(x, x).size() == 1",
    message = "output needs exactly one of shardSize, recordsPerShard or shardCount")
// sort clean deletes in .quarry-scratch folders: no output may be written there.
@ValidationRule(
    value = "!has(self.template) || !self.template.matches('(^|/)\\\\.quarry-scratch(/|$)')",
    message = "output.template must not be in a .quarry-scratch folder, which is reserved for sort scratch")
// The range numbers the shard names: in a folder name, every shard would be named alike in the manifest.
@ValidationRule(
    value = "!has(self.template) || !self.template.matches('\\\\{[0-9]+\\\\.\\\\.([0-9]+)?\\\\}.*/')",
    message = "output.template must have its range in the file name, not in a folder name")
public record ShardOutput(
    @JsonPropertyDescription("Output shard URLs as a brace template whose range numbers the shards. The range may be"
            + " open-ended, for example s3://datasets/shuffled-{000000..}.tar; a closed range that is too short"
            + " for the shards the job produces fails the plan phase before anything is written. Its folder is the"
            + " output location: every output name stays in it, and with a keymap order (whose lines name the"
            + " templates, absolute or relative to it) only the folder is used.")
        @Pattern("^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]/.*\\{[0-9]+\\.\\.([0-9]+)?\\}.*$")
        @Size(max = 2048)
        String template,
    @JsonPropertyDescription("Archive format of the output shards; a value other than the input's converts."
            + " Defaults to the format the shards' names end in (.tar, .tar.gz, .tgz, .tar.lz4, .zip, .msgpack:"
            + " the template's, or with a keymap order its lines'), else the input format; a value other than the"
            + " names' is refused.")
        ShardFormat format,
    @JsonPropertyDescription("Target size of each shard's payload, as a quantity (256Mi). Records are never split:"
            + " a shard is closed at the first record that brings it to the size or beyond.")
        @Pattern(Patterns.BYTE_SIZE)
        String shardSize,
    @JsonPropertyDescription("Exactly this many records per shard; the last shard may have fewer.")
        @Min(1)
        @Max(100000000)
        Long recordsPerShard,
    @JsonPropertyDescription("Exactly this many shards, whose record counts differ by at most one (with a keymap"
            + " order: this many per key map template).")
        @Min(1)
        @Max(10000000)
        Long shardCount) {}
