package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** The order of records across all output shards. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.seed) || self.kind == 'shuffle'", message = "seed is only allowed with kind shuffle")
@ValidationRule(value = "self.kind != 'shuffle' || has(self.seed)", message = "kind shuffle needs a seed")
@ValidationRule(
    value = "!has(self.descending) || !self.descending || self.kind in ['alphanumeric', 'content']",
    message = "descending is only allowed with kind alphanumeric or content")
@ValidationRule(value = "has(self.content) == (self.kind == 'content')", message = "content is required with, and only allowed with, kind content")
@ValidationRule(value = "has(self.keymap) == (self.kind == 'keymap')", message = "keymap is required with, and only allowed with, kind keymap")
public record ShardOrder(
    @JsonPropertyDescription("alphanumeric: by record name; none: input order; md5: by the MD5 of the record name;"
            + " shuffle: a seeded random permutation; content: by a value read from one member;"
            + " keymap: records to the output shards a key map names.")
        @Required
        OrderKind kind,
    @JsonPropertyDescription("Reverse the order (alphanumeric and content only).")
        @Default("false")
        Boolean descending,
    @JsonPropertyDescription("Seed of the shuffle. The same seed and input give the same output, byte for byte,"
            + " however the work is split among workers.")
        @Min(0)
        Long seed,
    @JsonPropertyDescription("The member to read the sort key from (content only).")
        ContentKey content,
    @JsonPropertyDescription("The key map (keymap only).")
        Keymap keymap) {}
