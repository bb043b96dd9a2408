package dev.quarry.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** What a real command printed and returned; tests run GNU tar, Python, kubectl and helm through it. */
public record CommandResult(int exitCode, String stdout, String stderr) {
  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  /** Runs {@code command} in {@code directory} (null: the current one) and waits for it. */
  public static CommandResult run(Path directory, List<String> command) throws IOException, InterruptedException {
    return run(directory, Map.of(), command);
  }

  /** Runs {@code command} with {@code environment} added to this process's, and waits for it. */
  public static CommandResult run(Path directory, Map<String, String> environment, List<String> command)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("quarry-cmd-", ".out");
    Path err = Files.createTempFile("quarry-cmd-", ".err");
    try {
      ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
      builder.environment().putAll(environment);
      if (directory != null) {
        builder.directory(directory.toFile());
      }
      Process process = builder.start();
      if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("Cannot run " + command + ": no exit within " + TIMEOUT);
      }
      return new CommandResult(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** Runs {@code command} and returns its stdout; fails with everything it printed if it exits non-zero. */
  public static String check(Path directory, String... command) throws IOException, InterruptedException {
    CommandResult result = run(directory, List.of(command));
    if (result.exitCode() != 0) {
      throw new AssertionError(String.join(" ", command) + " exited with " + result.exitCode() + "\nstdout:\n"
          + result.stdout() + "\nstderr:\n" + result.stderr());
    }
    return result.stdout();
  }

  /** stdout's lines. */
  public List<String> lines() {
    return stdout.lines().toList();
  }
}
