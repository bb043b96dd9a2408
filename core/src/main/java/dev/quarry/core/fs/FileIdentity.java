package dev.quarry.core.fs;

import java.io.IOException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;

/**
 * Which file a path named at one moment: its device and inode ({@code st_dev}, {@code st_ino}). A path checked once
 * and used again by name may meanwhile name another file (a folder on the way swapped for a link); comparing the
 * identity of what was used with the one checked tells.
 *
 * @param device {@code st_dev} as glibc encodes it
 */
public record FileIdentity(long device, long inode) {
  /** The identity of {@code path} itself, never following a link. */
  public static FileIdentity of(Path path) throws IOException {
    return of(path, LinkOption.NOFOLLOW_LINKS);
  }

  static FileIdentity of(Path path, LinkOption... options) throws IOException {
    Map<String, Object> unix = java.nio.file.Files.readAttributes(path, "unix:dev,ino", options);
    return new FileIdentity((Long) unix.get("dev"), (Long) unix.get("ino"));
  }

  /** The identity of the file with major:minor {@code device} ({@code 8:1}) and {@code inode}, as losetup prints. */
  public static FileIdentity ofNumbers(String device, long inode) {
    int colon = device.indexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("Invalid device: " + device + " (must be major:minor)");
    }
    long major = Long.parseLong(device.substring(0, colon));
    long minor = Long.parseLong(device.substring(colon + 1));
    // glibc's makedev
    long dev = ((major & 0xfffL) << 8) | ((major & ~0xfffL) << 32) | (minor & 0xffL) | ((minor & ~0xffL) << 12);
    return new FileIdentity(dev, inode);
  }

  public long major() {
    return ((device >>> 8) & 0xfffL) | ((device >>> 32) & ~0xfffL);
  }

  public long minor() {
    return (device & 0xffL) | ((device >>> 12) & ~0xffL);
  }

  @Override
  public String toString() {
    return "inode " + inode + " on device " + major() + ":" + minor();
  }
}
