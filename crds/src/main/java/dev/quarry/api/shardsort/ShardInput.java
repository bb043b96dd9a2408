package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.Patterns;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/** The input shards, named in exactly one of three ways. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "[has(self.template), has(self.prefix), has(self.objects)].filter(x, x).size() == 1",
    message = "input needs exactly one of template, prefix or objects")
public record ShardInput(
    @JsonPropertyDescription("Shard URLs as a bash-style brace template with a numeric range and an optional step,"
            + " for example s3://datasets/train-{000000..001281}.tar or s3://b/part-{0..998..2}.tar.gz.")
        @Pattern("^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]/.*\\{[0-9]+\\.\\.[0-9]+(\\.\\.[1-9][0-9]*)?\\}.*$")
        @Size(max = 2048)
        String template,
    @JsonPropertyDescription("Every object under this prefix whose name ends in the input format's extension,"
            + " for example s3://datasets/train/.")
        @Pattern(Patterns.S3_URL)
        @Size(max = 2048)
        String prefix,
    @JsonPropertyDescription("An explicit list of shard URLs.")
        @Size(min = 1, max = 100000)
        List<@Pattern(Patterns.S3_URL) String> objects,
    @JsonPropertyDescription("Archive format of the input shards. Inferred from the file extension when omitted.")
        ShardFormat format) {}
