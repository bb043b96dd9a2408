package dev.quarry.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** This process's open descriptors of files ({@code /proc/self/fd}), for tests of how often code opens a file. */
public final class OpenDescriptors {
  private static final Path FD = Path.of("/proc/self/fd");

  private OpenDescriptors() {}

  /** The descriptors ({@code /proc/self/fd/N}) open on {@code file}, which must exist. */
  public static List<Path> of(Path file) throws IOException {
    Path real = file.toRealPath(); // the kernel names open files by their real paths
    return matching(real::equals);
  }

  /** How many descriptors are open on files in {@code folder} or below it. */
  public static long under(Path folder) throws IOException {
    Path real = folder.toRealPath();
    return matching(target -> target.startsWith(real)).size();
  }

  private static List<Path> matching(Predicate<Path> target) throws IOException {
    try (Stream<Path> fds = Files.list(FD)) {
      return fds.filter(fd -> {
        try {
          return target.test(Files.readSymbolicLink(fd));
        } catch (IOException closedMeanwhile) {
          return false;
        }
      }).toList();
    }
  }
}
