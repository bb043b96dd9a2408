package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How records are ordered across all shards before they are cut into output shards. */
public enum OrderKind {
  /** By record name, byte-wise. */
  @JsonProperty("alphanumeric")
  ALPHANUMERIC,
  /** Input order: shards in input order, records in shard order. */
  @JsonProperty("none")
  NONE,
  /** By the MD5 of the record name: a fixed pseudo-random order. */
  @JsonProperty("md5")
  MD5,
  /** A seeded random permutation. */
  @JsonProperty("shuffle")
  SHUFFLE,
  /** By a value read from one member of each record. */
  @JsonProperty("content")
  CONTENT,
  /** Each record to the output shard its name maps to in a key map. */
  @JsonProperty("keymap")
  KEYMAP
}
