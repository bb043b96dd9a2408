package dev.quarry.testkit;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the checkout's root from a module's working directory, for tests that read committed files. */
public final class RepositoryRoot {
  private RepositoryRoot() {}

  public static Path find() {
    Path start = Path.of("").toAbsolutePath();
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      if (Files.exists(dir.resolve("charts/quarry/Chart.yaml")) && Files.exists(dir.resolve("pom.xml"))) {
        return dir;
      }
    }
    throw new IllegalStateException("Cannot find the repository root above " + start
        + ": run the tests from inside the Quarry checkout");
  }
}
