package dev.quarry.core.fs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How many files one cache of open files may keep open: a quarter of what the process may open (the JVM raises its
 * soft limit to the hard one at start), from 16 to 4096; 256 where the limit is not known. A file kept open for many
 * reads saves an open, a stat and a close for each, which cost more than reading a record of a few kilobytes.
 */
public final class OpenFileLimit {
  /** The soft limit's line of {@code /proc/self/limits}; before {@link #PER_CACHE}, which reads it. */
  private static final Pattern OPEN_FILES = Pattern.compile("(?m)^Max open files\\s+(\\d+|unlimited)\\s");
  /** The most files one cache keeps open. */
  public static final int PER_CACHE = perCache(Path.of("/proc/self/limits"));

  private OpenFileLimit() {}

  /**
   * From the soft limit in {@code limits} ({@code /proc/self/limits}): a file read, where the JVM's management bean
   * loaded and started 30 ms of classes on the first record read of every create.
   */
  static int perCache(Path limits) {
    try {
      Matcher matcher = OPEN_FILES.matcher(Files.readString(limits));
      if (matcher.find()) {
        long files = matcher.group(1).equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(matcher.group(1));
        return (int) Math.clamp(files / 4, 16, 4096);
      }
    } catch (IOException | NumberFormatException unknown) {
      // not Linux, or a limit past a long: the default below
    }
    return 256;
  }
}
