package dev.quarry.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Examples bind to the API classes with no unknown field, so a misspelled field in an example fails here. The
 * schema's own checks (patterns, CEL rules) are proven on a real API server by ExampleManifestsIT.
 */
class ExampleManifestsTest {
  private static final ObjectMapper STRICT_YAML =
      new ObjectMapper(new YAMLFactory()).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  static List<Path> valid() {
    return ExampleManifests.valid();
  }

  static List<Path> invalid() {
    return ExampleManifests.invalid();
  }

  @Test
  void thereIsAnExampleOfEveryKind() throws IOException {
    List<String> kinds = ExampleManifests.valid().stream().map(ExampleManifestsTest::kindOf).toList();
    assertThat(kinds).contains("ShardSortJob", "DatasetSync", "NodeCache");
  }

  @ParameterizedTest
  @MethodSource("valid")
  void exampleBindsWithoutUnknownFields(Path manifest) throws IOException {
    JsonNode tree = STRICT_YAML.readTree(manifest.toFile());
    String kind = tree.path("kind").asText();
    if (!ExampleManifests.SPEC_CLASSES.containsKey(kind)) {
      assertThat(tree.path("apiVersion").asText()).as("non-Quarry examples are core objects").isEqualTo("v1");
      return;
    }
    assertThat(tree.path("apiVersion").asText()).isEqualTo("quarry.dev/v1alpha1");
    assertThat(tree.path("metadata").path("name").asText()).isNotBlank();
    Object spec = STRICT_YAML.treeToValue(tree.get("spec"), ExampleManifests.SPEC_CLASSES.get(kind));
    assertThat(spec).isNotNull();
  }

  @ParameterizedTest
  @MethodSource("invalid")
  void invalidFixtureNamesTheRefusalItExpects(Path manifest) {
    assertThat(ExampleManifests.expectedRefusal(manifest)).isNotBlank();
  }

  private static String kindOf(Path manifest) {
    try {
      return STRICT_YAML.readTree(manifest.toFile()).path("kind").asText();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
