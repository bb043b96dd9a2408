package dev.quarry.core.gen;

import dev.quarry.core.archive.ShardFormat;

/**
 * What a synthetic dataset looks like: {@code shards} shards of {@code recordsPerShard} records, each record an
 * image-sized member and a label member holding a class number.
 *
 * @param namePrefix shard file names are {@code <namePrefix>-<6-digit index>.<extension>}
 * @param imageBytes mean size of the image member
 * @param sizeJitterPercent image sizes vary uniformly by up to this percentage around the mean
 * @param classes label values are drawn from {@code [0, classes)}
 * @param seed the same seed gives the same bytes
 */
public record DatasetSpec(
    String namePrefix,
    int shards,
    int recordsPerShard,
    int imageBytes,
    int sizeJitterPercent,
    int classes,
    ShardFormat format,
    long seed) {

  public DatasetSpec {
    require(namePrefix.matches("[A-Za-z0-9._-]+"), "name prefix", namePrefix, "letters, digits, '.', '_' or '-'");
    require(shards >= 1 && shards <= 1_000_000, "shard count", shards, "from 1 to 1000000");
    require(recordsPerShard >= 1, "records per shard", recordsPerShard, "at least 1");
    require(imageBytes >= 0, "image size", imageBytes, "0 or more bytes");
    require(sizeJitterPercent >= 0 && sizeJitterPercent <= 100, "size jitter", sizeJitterPercent, "from 0 to 100");
    require(classes >= 1, "class count", classes, "at least 1");
  }

  private static void require(boolean valid, String thing, Object value, String rule) {
    if (!valid) {
      throw new IllegalArgumentException("Invalid " + thing + ": " + value + " (must be " + rule + ")");
    }
  }

  /** File name of shard {@code index}. */
  public String shardName(int index) {
    return String.format("%s-%06d.%s", namePrefix, index, format.extension());
  }

  /** Key of the record at {@code position} in shard {@code shard}: numbered across the whole dataset. */
  public String recordKey(int shard, int position) {
    return String.format("sample-%09d", (long) shard * recordsPerShard + position);
  }
}
