package dev.quarry.core.cache.host;

import dev.quarry.core.fs.FileIdentity;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Mounts and unmounts squashfs images with util-linux. An image is attached to a loop device first and mounted only
 * when the device's backing file is the file that was checked; the device is then detached while mounted, which makes
 * it autoclear: the kernel frees it when its last user goes, even after a lazy unmount.
 */
public final class Mounts {
  private Mounts() {}

  /**
   * Mounts {@code image} read-only at {@code mountPoint}, over whatever is mounted there; nosuid and nodev, since the
   * image's author need not be trusted with the node: its setuid files and device nodes stay inert. Both paths must
   * have been resolved without links first ({@link dev.quarry.core.fs.RootedPaths}); losetup and mount look them up
   * again by name, so the loop device's backing file must be {@code expected} (the file that was checked), or
   * nothing is mounted.
   *
   * @throws IOException "Cannot mount IMAGE: it was replaced ..." when the path names another file by now
   */
  public static void mountImage(Path image, FileIdentity expected, Path mountPoint) throws IOException {
    String device = HostCommand.run("attach " + image + " to a loop device", List.of("losetup", "--find", "--show",
        "--read-only", image.toString())).strip();
    boolean mounted = false;
    try {
      FileIdentity backing = backingFile(device);
      if (!backing.equals(expected)) {
        throw new IOException("Cannot mount " + image + ": it was replaced after it was checked (it named "
            + expected + ", the loop device reads " + backing + "): a folder on the way was swapped, perhaps for a link");
      }
      HostCommand.run("mount " + image + " at " + mountPoint, List.of("mount", "-t", "squashfs", "-o",
          "ro,nosuid,nodev", device, mountPoint.toString()));
      mounted = true;
    } finally {
      // Detaching a mounted device only marks it autoclear; an unmounted one is freed at once.
      try {
        HostCommand.run("detach " + device, List.of("losetup", "--detach", device));
      } catch (IOException e) {
        if (!mounted) {
          throw e;
        }
      }
    }
  }

  /** The device and inode of the file {@code loop} reads, as the kernel reports them. */
  public static FileIdentity backingFile(LoopDevice loop) throws IOException {
    return backingFile("/dev/" + loop.name());
  }

  /** The device and inode of the file a loop device reads, as the kernel reports them (LOOP_GET_STATUS64). */
  private static FileIdentity backingFile(String device) throws IOException {
    String line = HostCommand.run("read loop device " + device, List.of("losetup", "--list", "--noheadings",
        "--output", "BACK-MAJ:MIN,BACK-INO", device)).strip();
    String[] fields = line.split("\\s+");
    if (fields.length != 2) {
      throw new IOException("Cannot read loop device " + device + ": losetup printed " + line);
    }
    return FileIdentity.ofNumbers(fields[0], Long.parseLong(fields[1]));
  }

  /**
   * Detaches the top mount at {@code mountPoint} at once; the kernel finishes the unmount when the last open file
   * on it closes, so readers of open files are never cut off.
   */
  public static void detachTop(Path mountPoint) throws IOException {
    HostCommand.run("unmount " + mountPoint, List.of("umount", "--lazy", mountPoint.toString()));
  }
}
