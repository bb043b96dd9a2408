package dev.quarry.core.sort.spec;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How records are ordered across all output shards (the API's {@code order.kind}). */
public enum OrderKind {
  @JsonProperty("alphanumeric")
  ALPHANUMERIC,
  @JsonProperty("none")
  NONE,
  @JsonProperty("md5")
  MD5,
  @JsonProperty("shuffle")
  SHUFFLE,
  @JsonProperty("content")
  CONTENT,
  @JsonProperty("keymap")
  KEYMAP
}
