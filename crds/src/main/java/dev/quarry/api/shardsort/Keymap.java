package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.Patterns;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * Maps record names to output shards. Each line is {@code <pattern><separator><output shard template>}, where the
 * pattern is a regular expression that must match the whole record name.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.inline) != has(self.object)",
    message = "keymap needs exactly one of inline or object")
public record Keymap(
    @JsonPropertyDescription("The key map's lines, inline (up to 256 KiB; use object for larger maps).")
        @Size(min = 1, max = 262144)
        String inline,
    @JsonPropertyDescription("URL of an object holding the key map's lines.")
        @Pattern(Patterns.S3_URL)
        String object,
    @JsonPropertyDescription("Separator between pattern and template on each line.")
        @Default("\"\\t\"")
        @Size(min = 1, max = 8)
        String separator) {}
