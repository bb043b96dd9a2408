package dev.quarry.core.fs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.UUID;

/**
 * The process's umask, which Java cannot read directly: found once by creating a folder with the default mode (0777
 * less the umask) in the temporary folder and reading its mode back. Modes that come from elsewhere (a remote
 * version) are applied through {@link #apply}, as tar does for a user, so a version cannot make files writable by
 * others that the user's umask would keep private.
 */
public final class Umask {
  private static volatile Integer value;

  private Umask() {}

  /** The umask's bits, e.g. 022. */
  public static int get() {
    Integer known = value;
    if (known == null) {
      known = probe();
      value = known;
    }
    return known;
  }

  /** {@code mode} less the umask's bits. */
  public static int apply(int mode) {
    return mode & ~get();
  }

  private static int probe() {
    Path probe = Path.of(System.getProperty("java.io.tmpdir")).resolve("quarry-umask-" + UUID.randomUUID());
    try {
      Files.createDirectory(probe);
      try {
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(probe);
        int mode = 0;
        for (PosixFilePermission permission : permissions) {
          mode |= 0400 >> permission.ordinal();
        }
        return 0777 & ~mode;
      } finally {
        Files.delete(probe);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the umask: " + e.getMessage(), e);
    }
  }
}
