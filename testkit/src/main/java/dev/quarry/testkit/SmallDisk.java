package dev.quarry.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * A small tmpfs mounted on a folder, for tests of what a full disk does. Mounting takes root: elsewhere the test is
 * skipped, but under CI, which runs as root, a failed mount fails the test, so that it runs rather than skips there.
 * Closing unmounts it.
 */
public final class SmallDisk implements AutoCloseable {
  private final Path folder;

  private SmallDisk(Path folder) {
    this.folder = folder;
  }

  /** Mounts a tmpfs of {@code size} ({@code 64k}) on {@code folder}, made if missing. */
  public static SmallDisk mount(Path folder, String size) throws IOException, InterruptedException {
    Files.createDirectories(folder);
    boolean mounted = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", folder.toString())
        .inheritIO().start().waitFor() == 0;
    if ("true".equals(System.getenv("CI")) && !mounted) {
      throw new AssertionError("Cannot mount a tmpfs on " + folder + ": CI runs as root, so there this test must run"
          + " rather than skip");
    }
    Assumptions.assumeTrue(mounted, "mounts a small tmpfs (root may)");
    return new SmallDisk(folder);
  }

  public Path folder() {
    return folder;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    new ProcessBuilder("umount", folder.toString()).inheritIO().start().waitFor();
  }
}
