package dev.quarry.e2e;

import dev.quarry.testkit.CommandResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Runs the shaded {@code quarry.jar} in its own JVM, as users and worker pods run it. */
final class QuarryJar {
  private QuarryJar() {}

  static Path jar() {
    Path jar = Path.of("..", "worker-image", "target", "quarry.jar").toAbsolutePath().normalize();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("Cannot find " + jar + ": build it with mvn -pl worker-image -am package");
    }
    return jar;
  }

  static CommandResult run(Path workDir, String... args) throws IOException, InterruptedException {
    return run(workDir, Map.of(), args);
  }

  static CommandResult run(Path workDir, Map<String, String> environment, String... args)
      throws IOException, InterruptedException {
    return CommandResult.run(workDir, environment, command(args));
  }

  /**
   * Runs quarry with only {@code environment}, none of this process's variables: as on a machine where nothing
   * about S3 is set up, unless the test sets it.
   */
  static CommandResult runIn(Path workDir, Map<String, String> environment, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("env", "-i"));
    environment.forEach((name, value) -> command.add(name + "=" + value));
    command.addAll(command(args));
    return CommandResult.run(workDir, Map.of(), command);
  }

  /** Starts quarry without waiting, its output in files of {@code workDir}; for tests that kill it. */
  static Process start(Path workDir, Map<String, String> environment, String... args) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(command(args)).directory(workDir.toFile())
        .redirectOutput(workDir.resolve("started.out").toFile()).redirectError(workDir.resolve("started.err").toFile());
    builder.environment().putAll(environment);
    return builder.start();
  }

  private static List<String> command(String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("-jar");
    command.add(jar().toString());
    command.addAll(List.of(args));
    return command;
  }
}
