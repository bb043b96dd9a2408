package dev.quarry.core.fs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The attributes of the file an open channel reads ({@code fstat}), which Java does not offer: the channel is moved to
 * a position no other descriptor of the process has, its descriptor is found by that position in
 * {@code /proc/self/fdinfo}, and {@code /proc/self/fd/N} is read, which names the open file itself whatever its path
 * became.
 */
final class OpenDescriptors {
  private static final Path FD = Path.of("/proc/self/fd");
  private static final Path FD_INFO = Path.of("/proc/self/fdinfo");

  private OpenDescriptors() {}

  /** Reads one {@code /proc/self/fdinfo} entry. */
  @FunctionalInterface
  interface InfoReader {
    String read(Path info) throws IOException;
  }

  /** What {@code channel} has open, with its identity; the channel's position is left at 0. */
  static Opened describe(FileChannel channel) throws IOException {
    return describe(channel, Files::readString);
  }

  static Opened describe(FileChannel channel, InfoReader infoReader) throws IOException {
    // Below any file system's largest offset (lseek refuses more); a clash with another descriptor's position finds
    // that descriptor's file, whose identity then differs: refused, never accepted.
    long mark = ThreadLocalRandom.current().nextLong(1L << 32, 1L << 40);
    channel.position(mark);
    try {
      String pos = "pos:\t" + mark;
      List<IOException> passedOver = new ArrayList<>();
      try (DirectoryStream<Path> infos = Files.newDirectoryStream(FD_INFO)) {
        for (Path info : infos) {
          String text;
          try {
            text = infoReader.read(info);
          } catch (IOException closedMeanwhile) {
            // Another thread's descriptor, closed since the listing (the open fails: NoSuchFileException) or between
            // the open and the read of its entry (the read fails with a bare ENOENT). The channel looked for stays
            // open throughout, so its own entry reads, unless something else is wrong: kept for the error below.
            passedOver.add(closedMeanwhile);
            continue;
          }
          if (text.lines().anyMatch(pos::equals)) {
            Path open = FD.resolve(info.getFileName());
            BasicFileAttributes attributes = Files.readAttributes(open, BasicFileAttributes.class);
            return new Opened(FileIdentity.of(open, new LinkOption[0]), attributes);
          }
        }
      }
      IOException notFound = new IOException("Cannot find the descriptor of an open file in " + FD_INFO);
      passedOver.forEach(notFound::addSuppressed);
      throw notFound;
    } finally {
      channel.position(0);
    }
  }

  record Opened(FileIdentity identity, BasicFileAttributes attributes) {}
}
