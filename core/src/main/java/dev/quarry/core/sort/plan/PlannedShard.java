package dev.quarry.core.sort.plan;

/** One output shard the plan decided on: its number, URL, and what goes in it. */
public record PlannedShard(long index, String url, int template, long records, long bytes) {}
