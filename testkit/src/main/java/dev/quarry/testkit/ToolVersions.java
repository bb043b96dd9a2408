package dev.quarry.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** The pinned versions that {@code e2e/tools/install-test-tools.sh} records in {@code versions.env}. */
public final class ToolVersions {
  private ToolVersions() {}

  /** The value of {@code key}: from the environment if set there, else from versions.env. */
  public static String get(String key) {
    String fromEnvironment = System.getenv(key);
    if (fromEnvironment != null && !fromEnvironment.isBlank()) {
      return fromEnvironment;
    }
    String value = read().get(key);
    if (value == null) {
      throw new IllegalStateException("Cannot find " + key + " in " + file()
          + ": run e2e/tools/install-test-tools.sh (or e2e/run-tests.sh) first");
    }
    return value;
  }

  private static Path file() {
    return TestTools.binDirectory().getParent().resolve("versions.env");
  }

  private static Map<String, String> read() {
    Map<String, String> values = new HashMap<>();
    if (!Files.exists(file())) {
      return values;
    }
    try {
      for (String line : Files.readAllLines(file())) {
        int equals = line.indexOf('=');
        if (!line.startsWith("#") && equals > 0) {
          values.put(line.substring(0, equals).trim(), line.substring(equals + 1).trim());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file(), e);
    }
    return values;
  }
}
