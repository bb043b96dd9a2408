package dev.quarry.core.archive;

import java.util.Arrays;
import java.util.stream.Collectors;

/** Archive formats of shards, named by their file extension. */
public enum ShardFormat {
  TAR("tar");

  private final String extension;

  ShardFormat(String extension) {
    this.extension = extension;
  }

  /** The file extension without a leading dot, for example {@code tar.gz}. */
  public String extension() {
    return extension;
  }

  /** The format whose extension is {@code extension}. */
  public static ShardFormat ofExtension(String extension) {
    for (ShardFormat format : values()) {
      if (format.extension.equals(extension)) {
        return format;
      }
    }
    throw new IllegalArgumentException("Invalid shard format: " + extension + " (must be one of "
        + Arrays.stream(values()).map(ShardFormat::extension).collect(Collectors.joining(", ")) + ")");
  }
}
