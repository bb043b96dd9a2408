package dev.quarry.core.gen;

/** One shard written by the generator. */
public record GeneratedShard(String name, long records, long bytes) {}
