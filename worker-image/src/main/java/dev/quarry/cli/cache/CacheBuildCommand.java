package dev.quarry.cli.cache;

import dev.quarry.core.cache.image.ImageBuilder;
import dev.quarry.core.json.Json;
import dev.quarry.core.units.ByteSize;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code quarry cache build}: a squashfs image of a folder, with the checksum a NodeCache declares. */
@Command(
    name = "build",
    mixinStandardHelpOptions = true,
    description = {
      "Makes a squashfs image of a folder with mksquashfs (squashfs-tools), files owned by root, and prints its"
          + " size and SHA-256 for the NodeCache's images[].checksum. The image appears under its name only when"
          + " complete, so it can be written straight into the shared folder the agents mount from.",
      ""
    },
    footer = {"", "Example:", "  quarry cache build /data/imagenet /mnt/nfs/images/imagenet.sqfs"})
public final class CacheBuildCommand implements Callable<Integer> {
  @Spec CommandSpec command;

  @Parameters(index = "0", paramLabel = "FOLDER", description = "The folder to put in the image.")
  Path folder;

  @Parameters(index = "1", paramLabel = "IMAGE", description = "The image file to write (.sqfs).")
  Path image;

  @Option(names = "--compression", defaultValue = "zstd",
      description = "zstd, gzip, lz4, xz or none (default: ${DEFAULT-VALUE}). Media files are already compressed:"
          + " none reads fastest.")
  String compression;

  @Option(names = "--threads", description = "Compression threads (default: the number of processors).")
  Integer threads;

  @Option(names = "--json", description = "Print the result as JSON on stdout instead of a summary.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    ImageBuilder.Compression chosen;
    try {
      chosen = ImageBuilder.Compression.valueOf(compression.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid compression: " + compression
          + " (must be zstd, gzip, lz4, xz or none)");
    }
    long start = System.nanoTime();
    ImageBuilder.BuiltImage built = ImageBuilder.build(folder, image, chosen,
        threads != null ? threads : Runtime.getRuntime().availableProcessors());
    double seconds = (System.nanoTime() - start) / 1e9;
    PrintWriter out = command.commandLine().getOut();
    if (json) {
      out.println(Json.write(built));
    } else {
      out.printf(Locale.ROOT, "Built %s (%s) in %.1f s%nchecksum: sha256:%s%n", built.image(),
          ByteSize.format(built.sizeBytes()), seconds, built.sha256());
    }
    out.flush();
    return 0;
  }
}
