package dev.quarry.api;

import dev.quarry.testkit.RepositoryRoot;
import dev.quarry.api.datasetsync.DatasetSyncSpec;
import dev.quarry.api.nodecache.NodeCacheSpec;
import dev.quarry.api.shardsort.ShardSortJobSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** The example manifests users apply (docs/examples) and the invalid ones the schema must refuse. */
public final class ExampleManifests {
  /** The spec class of each Quarry kind. */
  public static final Map<String, Class<?>> SPEC_CLASSES = Map.of(
      "ShardSortJob", ShardSortJobSpec.class,
      "DatasetSync", DatasetSyncSpec.class,
      "NodeCache", NodeCacheSpec.class);

  private static final String REFUSED_PREFIX = "# refused: ";

  private ExampleManifests() {}

  /** Every manifest in docs/examples. */
  public static List<Path> valid() {
    return yamlFiles(RepositoryRoot.find().resolve("docs/examples"));
  }

  /** Every manifest the schema must refuse; each starts with a line {@code # refused: <message>}. */
  public static List<Path> invalid() {
    return yamlFiles(RepositoryRoot.find().resolve("crds/src/test/resources/invalid"));
  }

  /** The part of the API server's message that an invalid manifest expects. */
  public static String expectedRefusal(Path manifest) {
    try {
      String first = Files.readAllLines(manifest).get(0);
      if (!first.startsWith(REFUSED_PREFIX)) {
        throw new IllegalStateException("Invalid fixture " + manifest + ": its first line must be '"
            + REFUSED_PREFIX + "<expected message>'");
      }
      return first.substring(REFUSED_PREFIX.length()).trim();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Path> yamlFiles(Path directory) {
    try (Stream<Path> files = Files.list(directory)) {
      return files.filter(path -> path.toString().endsWith(".yaml")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
