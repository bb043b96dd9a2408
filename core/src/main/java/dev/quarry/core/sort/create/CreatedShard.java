package dev.quarry.core.sort.create;

/** An output shard written and committed: the create phase's done marker for it, and a manifest line. */
public record CreatedShard(long index, String url, long size, long records, String sha256) {}
