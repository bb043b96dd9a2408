package dev.quarry.core.sort.input;

import dev.quarry.core.archive.ShardFormat;

/** One input shard: its place in the job's input list, its URL and its format. */
public record InputShard(int index, String url, ShardFormat format) {}
