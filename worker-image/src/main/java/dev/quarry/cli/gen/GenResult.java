package dev.quarry.cli.gen;

import dev.quarry.core.gen.GeneratedShard;
import java.nio.file.Path;
import java.util.List;

/** The JSON result of {@code quarry gen}. */
record GenResult(String directory, long shards, long records, long bytes, double elapsedSeconds,
    List<GeneratedShard> shardList) {

  static GenResult of(Path directory, List<GeneratedShard> shards, double elapsedSeconds) {
    long records = shards.stream().mapToLong(GeneratedShard::records).sum();
    long bytes = shards.stream().mapToLong(GeneratedShard::bytes).sum();
    return new GenResult(directory.toString(), shards.size(), records, bytes, elapsedSeconds, shards);
  }
}
