package dev.quarry.core.cache.agent;

import dev.quarry.core.fs.RootedPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The rule for an image whose source is a path on the node: it must be a regular file under one of the source roots
 * the cluster admin allows, reached from the root without a symbolic link or a mount on the way. A privileged agent
 * would otherwise read (and copy, and loop-mount) any file or device of the host a NodeCache names, or one a link
 * on the shared storage points to.
 */
final class SourceRoots {
  private SourceRoots() {}

  /** Why {@code image}'s source must not be read, or empty when it may. A missing source is not refused here. */
  static Optional<String> refusal(ImageSpec image, RootedPaths roots, RootedPaths.KnownMounts mounts) throws IOException {
    Path source = Path.of(image.source());
    Path file;
    try {
      file = roots.existing(source, mounts);
    } catch (NoSuchFileException e) {
      return Optional.empty(); // reported as missing by the caller, which also sees it appear later
    } catch (IOException e) {
      return Optional.of("Cannot mount image " + image.name() + " from its source: " + e.getMessage());
    }
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.of("Cannot mount image " + image.name() + ": its source " + source + " is not a regular file");
    }
    return Optional.empty();
  }
}
