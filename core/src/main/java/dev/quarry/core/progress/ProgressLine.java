package dev.quarry.core.progress;

import dev.quarry.core.units.ByteSize;
import dev.quarry.core.units.Counted;
import java.util.Locale;

/**
 * Where a long step stands: {@code done} of {@code total} units, bytes moved (of {@code totalBytes}, or -1 when not
 * known ahead) and the seconds since it started; {@code detail} (or null) is one more count, such as records.
 */
public record ProgressLine(String what, long done, long total, String unit, String detail, long bytes,
    long totalBytes, double seconds) {

  /** Bytes per second so far. */
  public long bytesPerSecond() {
    return (long) (bytes / Math.max(seconds, 1e-9));
  }

  /** How much is done, from 0 to 1: by bytes when their total is known, else by units; 0 when nothing is known. */
  public double fraction() {
    if (totalBytes > 0) {
      return Math.min(1, (double) bytes / totalBytes);
    }
    return total > 0 ? Math.min(1, (double) done / total) : 0;
  }

  /** The line a log gets: "push: 3/10 objects, 1.0 MiB/10 MiB, 512 KiB/s, 2.0 s". */
  public String plain() {
    return String.format(Locale.ROOT, "%s: %d/%d %s%s, %s%s, %s/s, %.1f s", what, done, total,
        Counted.noun(total, unit), detail == null ? "" : ", " + detail, ByteSize.format(bytes),
        totalBytes >= 0 ? "/" + ByteSize.format(totalBytes) : "", ByteSize.format(bytesPerSecond()), seconds);
  }
}
