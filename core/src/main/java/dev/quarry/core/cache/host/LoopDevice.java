package dev.quarry.core.cache.host;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A loop device as sysfs describes it: its name ({@code loop3}), the file behind it, its size and whether the kernel
 * frees it on last close (autoclear).
 *
 * @param deleted true when the kernel appends " (deleted)" to the backing file: the file was removed or replaced
 *     while the device still holds it open, so its space is not free yet and it is no longer what the path names
 */
public record LoopDevice(String name, Path backingFile, boolean deleted, boolean autoclear, long sizeBytes) {
  private static final Path SYS_DEV_BLOCK = Path.of("/sys/dev/block");
  private static final Path SYS_BLOCK = Path.of("/sys/block");
  private static final String DELETED_SUFFIX = " (deleted)";

  /** The loop device with major:minor {@code device}, or empty when it is not a loop device or is detached. */
  public static Optional<LoopDevice> ofDevice(String device) throws IOException {
    return read(SYS_DEV_BLOCK.resolve(device));
  }

  /** Every attached loop device. */
  public static List<LoopDevice> attached() throws IOException {
    List<LoopDevice> devices = new ArrayList<>();
    try (DirectoryStream<Path> blocks = Files.newDirectoryStream(SYS_BLOCK, "loop*")) {
      for (Path block : blocks) {
        read(block).ifPresent(devices::add);
      }
    }
    return devices;
  }

  private static Optional<LoopDevice> read(Path sys) throws IOException {
    Path loop = sys.resolve("loop");
    try {
      String backing = Files.readString(loop.resolve("backing_file")).strip();
      boolean deleted = backing.endsWith(DELETED_SUFFIX);
      if (deleted) {
        backing = backing.substring(0, backing.length() - DELETED_SUFFIX.length());
      }
      boolean autoclear = Files.readString(loop.resolve("autoclear")).strip().equals("1");
      long sectors = Long.parseLong(Files.readString(sys.resolve("size")).strip());
      String name = sys.toRealPath().getFileName().toString();
      return Optional.of(new LoopDevice(name, Path.of(backing), deleted, autoclear, sectors * 512));
    } catch (NoSuchFileException e) {
      return Optional.empty(); // not a loop device, or detached while we looked
    }
  }
}
