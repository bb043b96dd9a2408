package dev.quarry.core.fs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where a path really leads, for comparing paths that may not exist yet or may pass through links. */
public final class RealPaths {
  private RealPaths() {}

  /**
   * The real path of the deepest part of {@code path} that exists (its links resolved), with the rest of it appended:
   * a folder not made yet, named through a link, is placed where it will be.
   */
  public static Path ofDeepestExisting(Path path) throws IOException {
    Path existing = path;
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    return existing == null ? path : existing.toRealPath().resolve(existing.relativize(path));
  }
}
