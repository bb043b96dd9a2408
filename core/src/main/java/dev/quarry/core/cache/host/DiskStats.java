package dev.quarry.core.cache.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Bytes read per block device since boot, from {@code /proc/diskstats}. The kernel counts sectors read in 512-byte
 * units whatever the device's logical block size (Documentation/admin-guide/iostats.rst), so a 4 KiB loop device is
 * not over-counted eightfold as scratch_manager's hw_sector_size scaling would.
 */
public final class DiskStats {
  private static final Path DISKSTATS = Path.of("/proc/diskstats");
  static final int SECTOR_BYTES = 512;

  private DiskStats() {}

  /** Device name ({@code loop3}) to bytes read since boot. */
  public static Map<String, Long> bytesRead() throws IOException {
    return parse(Files.readAllLines(DISKSTATS));
  }

  /** Parses diskstats lines: major, minor, name, reads completed, reads merged, sectors read, ... */
  public static Map<String, Long> parse(List<String> lines) {
    Map<String, Long> bytes = new HashMap<>();
    for (String line : lines) {
      String[] fields = line.trim().split("\\s+");
      if (fields.length < 6) {
        continue;
      }
      bytes.put(fields[2], Long.parseLong(fields[5]) * SECTOR_BYTES);
    }
    return bytes;
  }
}
