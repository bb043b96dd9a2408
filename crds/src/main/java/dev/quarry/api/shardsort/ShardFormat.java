package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Archive formats a shard can be read from or written as; the names are the file extensions. */
public enum ShardFormat {
  @JsonProperty("tar")
  TAR,
  @JsonProperty("tar.gz")
  TAR_GZ,
  @JsonProperty("tar.lz4")
  TAR_LZ4,
  @JsonProperty("zip")
  ZIP,
  @JsonProperty("msgpack")
  MSGPACK
}
