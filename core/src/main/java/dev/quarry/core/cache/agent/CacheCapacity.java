package dev.quarry.core.cache.agent;

import dev.quarry.core.units.ByteSize;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The space the cache may use: a byte quantity ({@code 500Gi}) or a share of its filesystem ({@code 80%}). */
public record CacheCapacity(long bytes, int percent) {
  /** Parses {@code 500Gi} or {@code 80%}. */
  public static CacheCapacity parse(String text) {
    String trimmed = text.trim();
    if (trimmed.endsWith("%")) {
      int percent;
      try {
        percent = Integer.parseInt(trimmed.substring(0, trimmed.length() - 1));
      } catch (NumberFormatException e) {
        percent = -1;
      }
      if (percent < 1 || percent > 100) {
        throw new IllegalArgumentException("Invalid cache capacity: " + text + " (a percentage must be 1% to 100%)");
      }
      return new CacheCapacity(0, percent);
    }
    return new CacheCapacity(ByteSize.parse(trimmed), 0);
  }

  /** The capacity in bytes for a cache folder at {@code directory}. */
  public long resolve(Path directory) throws IOException {
    return percent == 0 ? bytes : Files.getFileStore(directory).getTotalSpace() / 100 * percent;
  }

  @Override
  public String toString() {
    return percent == 0 ? ByteSize.format(bytes) : percent + "%";
  }
}
