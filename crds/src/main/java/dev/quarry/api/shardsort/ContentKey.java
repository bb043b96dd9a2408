package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** The member whose content is each record's sort key, and how to read it. */
public record ContentKey(
    @JsonPropertyDescription("Member suffix holding the key, for example cls (the member x.cls of record x).")
        @Required
        @Pattern("^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")
        String member,
    @JsonPropertyDescription("How the member's text (trimmed) is parsed: int (64-bit), float (64-bit) or string.")
        @Required
        Type type) {

  /** How the key member's bytes are parsed. */
  public enum Type {
    @JsonProperty("int")
    INT,
    @JsonProperty("float")
    FLOAT,
    @JsonProperty("string")
    STRING
  }
}
