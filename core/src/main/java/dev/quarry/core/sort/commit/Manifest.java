package dev.quarry.core.sort.commit;

import java.util.List;

/**
 * The commit point of a shard sort, written after every shard and the WebDataset index: the shards in order with
 * their sizes, record counts and SHA-256. Its presence means the output is complete.
 */
public record Manifest(int version, String createdBy, String format, long records, long bytes, List<Shard> shards) {
  public static final int VERSION = 1;

  /** One output shard; {@code name} is relative to the manifest. */
  public record Shard(String name, long size, long records, String sha256) {}
}
