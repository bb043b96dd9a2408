package dev.quarry.core.cache.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a system tool (mount, umount, mksquashfs) and turns a failure into an error that carries what it printed. */
public final class HostCommand {
  private static final Duration TIMEOUT = Duration.ofMinutes(30);

  private HostCommand() {}

  /** Runs {@code command}; returns its stdout, or throws with its stderr when it exits non-zero. */
  public static String run(String action, List<String> command) throws IOException {
    Process process;
    try {
      process = new ProcessBuilder(command).redirectErrorStream(false).start();
    } catch (IOException e) {
      throw new IOException("Cannot " + action + ": cannot start " + command.get(0) + " (" + e.getMessage()
          + "); install util-linux and squashfs-tools", e);
    }
    process.getOutputStream().close();
    try {
      // Both pipes are drained concurrently so a chatty tool never blocks on a full pipe.
      StringBuilder errors = new StringBuilder();
      Thread stderr = Thread.ofVirtual().start(() -> {
        try {
          errors.append(new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException ignored) {
          // The exit code still reports the failure.
        }
      });
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("Cannot " + action + ": " + String.join(" ", command) + " did not finish in " + TIMEOUT);
      }
      stderr.join();
      if (process.exitValue() != 0) {
        throw new IOException("Cannot " + action + ": " + String.join(" ", command) + " exited with "
            + process.exitValue() + ": " + errors.toString().strip());
      }
      return out;
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("Cannot " + action + ": interrupted", e);
    }
  }
}
