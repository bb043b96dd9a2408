package dev.quarry.e2e;

import dev.quarry.testkit.CommandResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(jar().toString());
    command.addAll(List.of(args));
    return CommandResult.run(workDir, command);
  }
}
