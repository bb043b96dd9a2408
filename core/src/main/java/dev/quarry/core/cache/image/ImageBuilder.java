package dev.quarry.core.cache.image;

import dev.quarry.core.cache.host.HostCommand;
import dev.quarry.core.sync.cas.Digest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes a squashfs image of a folder with mksquashfs (Debian's squashfs-tools). Files are owned by root in the image
 * ({@code -all-root}) so that every node reads them the same way, and the image appears under its name only when
 * complete: publishing it into a shared folder never exposes a half-written image to the agents.
 */
public final class ImageBuilder {
  /** Compression settings mksquashfs accepts; zstd is fast to read, xz small, none fastest. */
  public enum Compression {
    ZSTD("zstd"),
    GZIP("gzip"),
    LZ4("lz4"),
    XZ("xz"),
    NONE(null);

    private final String mksquashfsName;

    Compression(String mksquashfsName) {
      this.mksquashfsName = mksquashfsName;
    }
  }

  /** The image made: where, how big, and its SHA-256 for the NodeCache's checksum field. */
  public record BuiltImage(Path image, long sizeBytes, String sha256) {}

  private ImageBuilder() {}

  /** Builds {@code image} from the contents of {@code folder}. */
  public static BuiltImage build(Path folder, Path image, Compression compression, int processors)
      throws IOException {
    if (!Files.isDirectory(folder)) {
      throw new IOException("Cannot build an image of " + folder + ": it is not a folder");
    }
    Path target = image.toAbsolutePath();
    Files.createDirectories(target.getParent());
    Path temp = target.resolveSibling("." + target.getFileName() + ".building");
    Files.deleteIfExists(temp);
    List<String> command = new ArrayList<>(List.of("mksquashfs", folder.toString(), temp.toString(),
        "-noappend", "-all-root", "-no-progress", "-quiet", "-processors", Integer.toString(Math.max(1, processors))));
    if (compression == Compression.NONE) {
      command.addAll(List.of("-noI", "-noD", "-noF", "-noX"));
    } else {
      command.addAll(List.of("-comp", compression.mksquashfsName));
    }
    try {
      HostCommand.run("build an image of " + folder, command);
      Digest digest = Digest.ofFile(temp);
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      return new BuiltImage(target, digest.size(), digest.hex());
    } finally {
      Files.deleteIfExists(temp);
    }
  }
}
