package dev.quarry.core.cache.host;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Mounts and unmounts squashfs images with util-linux. {@code mount -o loop} attaches a loop device with autoclear,
 * so the device is freed when its last user goes, even after a lazy unmount.
 */
public final class Mounts {
  private Mounts() {}

  /**
   * Mounts {@code image} read-only at {@code mountPoint}, over whatever is mounted there; nosuid and nodev, since the
   * image's author need not be trusted with the node: its setuid files and device nodes stay inert. Both paths must
   * have been resolved without links first ({@link dev.quarry.core.fs.RootedPaths}): mount follows them.
   */
  public static void mountImage(Path image, Path mountPoint) throws IOException {
    HostCommand.run("mount " + image + " at " + mountPoint, List.of("mount", "-t", "squashfs", "-o",
        "ro,nosuid,nodev,loop", image.toString(), mountPoint.toString()));
  }

  /**
   * Detaches the top mount at {@code mountPoint} at once; the kernel finishes the unmount when the last open file
   * on it closes, so readers of open files are never cut off.
   */
  public static void detachTop(Path mountPoint) throws IOException {
    HostCommand.run("unmount " + mountPoint, List.of("umount", "--lazy", mountPoint.toString()));
  }
}
