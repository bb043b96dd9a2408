package dev.quarry.cli.output;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The terminal a command's error stream goes to, if any, and its width: where progress is redrawn in place. Found
 * from the file descriptor (Linux: {@code /proc/self/fd/2} names a tty) and {@code COLUMNS} (the launcher sets it),
 * so a pod's log, a pipe or a file gets plain lines.
 */
public record Terminal(int width) {
  static final int DEFAULT_WIDTH = 80;

  public Terminal {
    if (width < 20) {
      throw new IllegalArgumentException("Invalid terminal width: " + width + " (must be 20 or more)");
    }
  }

  /** The terminal standard error goes to, or empty when it goes elsewhere or the terminal is dumb. */
  public static Optional<Terminal> ofStandardError() {
    return of(Path.of("/proc/self/fd/2"), System.getenv());
  }

  static Optional<Terminal> of(Path descriptor, Map<String, String> environment) {
    if ("dumb".equals(environment.get("TERM"))) {
      return Optional.empty();
    }
    try {
      String target = Files.readSymbolicLink(descriptor).toString();
      if (!target.startsWith("/dev/pts/") && !target.matches("/dev/tty\\d*")) {
        return Optional.empty();
      }
    } catch (IOException | UnsupportedOperationException e) {
      // No /proc (not Linux) or no link to read: not known to be a terminal, so plain lines, as in a log.
      return Optional.empty();
    }
    return Optional.of(new Terminal(width(environment.get("COLUMNS"))));
  }

  private static int width(String columns) {
    try {
      return columns == null ? DEFAULT_WIDTH : Math.max(20, Integer.parseInt(columns.strip()));
    } catch (NumberFormatException e) {
      return DEFAULT_WIDTH;
    }
  }
}
