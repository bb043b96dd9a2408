package dev.quarry.core.fs;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/**
 * How many files one cache of open files may keep open: a quarter of what the process may open (the JVM raises its
 * soft limit to the hard one), from 16 to 4096; 256 where the limit is not known. A file kept open for many reads
 * saves an open, a stat and a close for each, which cost more than reading a record of a few kilobytes.
 */
public final class OpenFileLimit {
  /** The most files one cache keeps open. */
  public static final int PER_CACHE = perCache();

  private OpenFileLimit() {}

  private static int perCache() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix) {
      return (int) Math.clamp(unix.getMaxFileDescriptorCount() / 4, 16, 4096);
    }
    return 256;
  }
}
