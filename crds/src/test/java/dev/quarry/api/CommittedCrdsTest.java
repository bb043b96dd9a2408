package dev.quarry.api;

import dev.quarry.testkit.RepositoryRoot;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/** The CRD YAML committed for users and the chart must be exactly what the API classes generate. */
class CommittedCrdsTest {
  private static final String HOW_TO_UPDATE =
      "the committed CRD differs from what the API classes generate: run mvn -pl crds -Pupdate-crds process-test-classes"
          + " and commit crds/yaml and charts/quarry/crds";

  @ParameterizedTest
  @FieldSource("dev.quarry.api.GeneratedCrds#FILES")
  void moduleCopyMatchesGenerated(String file) throws IOException {
    Path committed = RepositoryRoot.find().resolve("crds/yaml").resolve(file);
    assertThat(committed).exists();
    assertThat(Files.readString(committed)).as(HOW_TO_UPDATE).isEqualTo(GeneratedCrds.yaml(file));
  }

  @ParameterizedTest
  @FieldSource("dev.quarry.api.GeneratedCrds#FILES")
  void chartCopyMatchesGenerated(String file) throws IOException {
    Path committed = RepositoryRoot.find().resolve("charts/quarry/crds").resolve(file);
    assertThat(committed).exists();
    assertThat(Files.readString(committed)).as(HOW_TO_UPDATE).isEqualTo(GeneratedCrds.yaml(file));
  }

  @Test
  void noStaleFilesAreCommitted() throws IOException {
    try (var files = Files.list(RepositoryRoot.find().resolve("charts/quarry/crds"))) {
      assertThat(files.map(path -> path.getFileName().toString()))
          .as("every CRD in the chart is one the API classes generate")
          .allMatch(GeneratedCrds.FILES::contains);
    }
  }
}
