package dev.quarry.core.cache.agent;

import dev.quarry.core.cache.image.ImageBuilder;
import dev.quarry.core.sync.cas.Digest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/** A real squashfs image of random files, built by mksquashfs, and the SHA-256 of each file in it. */
record TestImage(Path image, String sha256, long sizeBytes, Map<String, String> fileDigests) {
  static TestImage build(Path work, String name, int files, int fileBytes, long seed) throws IOException {
    Path folder = Files.createDirectories(work.resolve(name + "-content"));
    SplittableRandom random = new SplittableRandom(seed);
    Map<String, String> digests = new LinkedHashMap<>();
    for (int i = 0; i < files; i++) {
      byte[] data = new byte[fileBytes];
      random.nextBytes(data);
      String file = "part-" + i + ".bin";
      Files.write(folder.resolve(file), data);
      digests.put(file, Digest.of(data).hex());
    }
    ImageBuilder.BuiltImage built = ImageBuilder.build(folder, work.resolve(name + ".sqfs"),
        ImageBuilder.Compression.NONE, 2);
    return new TestImage(built.image(), built.sha256(), built.sizeBytes(), digests);
  }
}
