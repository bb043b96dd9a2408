package dev.quarry.core.cache.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The rule for an image whose source is a path on the node: what it names, once every symlink is followed, must be a
 * regular file under one of the source roots the cluster admin allows. A privileged agent would otherwise read (and
 * copy, and loop-mount) any file or device of the host a NodeCache names, or a symlink to one.
 */
final class SourceRoots {
  private SourceRoots() {}

  /** Why {@code image}'s source must not be read, or empty when it may. A missing source is not refused here. */
  static Optional<String> refusal(ImageSpec image, List<Path> roots) throws IOException {
    Path source = Path.of(image.source());
    Path real;
    try {
      real = source.toRealPath();
    } catch (NoSuchFileException e) {
      return Optional.empty(); // reported as missing by the caller, which also sees it appear later
    }
    if (roots.stream().noneMatch(real::startsWith)) {
      return Optional.of("Cannot mount image " + image.name() + ": its source " + source
          + (real.equals(source) ? "" : " (" + real + ")") + " is outside the source roots the cluster admin allows ("
          + roots.stream().map(Path::toString).collect(Collectors.joining(", ")) + ")");
    }
    if (!Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.of("Cannot mount image " + image.name() + ": its source " + source + " is not a regular file");
    }
    return Optional.empty();
  }
}
