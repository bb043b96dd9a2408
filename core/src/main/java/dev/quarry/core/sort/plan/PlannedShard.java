package dev.quarry.core.sort.plan;

/**
 * One output shard the plan decided on: its number, URL, template, and the partition holding its first record (whose
 * create worker builds it when there are as many create workers as partitions).
 */
public record PlannedShard(long index, String url, int template, int partition) {}
