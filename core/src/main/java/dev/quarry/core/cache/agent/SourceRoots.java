package dev.quarry.core.cache.agent;

import dev.quarry.core.fs.RootedPaths;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The rule for an image whose source is a path on the node: it must be a regular file under one of the source roots
 * the cluster admin allows, reached from the root without a symbolic link or a mount on the way. A privileged agent
 * would otherwise read (and copy, and loop-mount) any file or device of the host a NodeCache names, or one a link
 * on the shared storage points to.
 */
final class SourceRoots {
  private SourceRoots() {}

  /**
   * An image's source file as checked, or why it must not be read.
   *
   * @param file the checked file; null when refused or when it does not exist (the caller reports it missing, and
   *     sees it when it appears later)
   */
  record Checked(RootedPaths.CheckedFile file, String refusal) {}

  /** {@code image}'s source looked up once under the source roots: the file every later use must be. */
  static Checked check(ImageSpec image, RootedPaths roots, RootedPaths.KnownMounts mounts) throws IOException {
    try {
      return new Checked(roots.file(Path.of(image.source()), mounts), null);
    } catch (NoSuchFileException e) {
      return new Checked(null, null);
    } catch (IOException e) {
      return new Checked(null, "Cannot mount image " + image.name() + " from its source: " + e.getMessage());
    }
  }
}
