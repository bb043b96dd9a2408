package dev.quarry.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the shaded {@code quarry.jar} in its own JVM, as users and worker pods run it. */
final class QuarryJar {
  /** What one run printed and returned. */
  record Run(int exitCode, String stdout, String stderr) {}

  private QuarryJar() {}

  static Path jar() {
    Path jar = Path.of("..", "worker-image", "target", "quarry.jar").toAbsolutePath().normalize();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("Cannot find " + jar + ": build it with mvn -pl worker-image -am package");
    }
    return jar;
  }

  static Run run(Path workDir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(jar().toString());
    command.addAll(List.of(args));
    Path stdout = Files.createTempFile(workDir, "stdout", ".txt");
    Path stderr = Files.createTempFile(workDir, "stderr", ".txt");
    Process process = new ProcessBuilder(command).directory(workDir.toFile())
        .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException("quarry " + String.join(" ", args) + " did not finish in 5 minutes");
    }
    return new Run(process.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8),
        Files.readString(stderr, StandardCharsets.UTF_8));
  }
}
