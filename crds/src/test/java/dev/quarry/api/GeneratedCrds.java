package dev.quarry.api;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;

/** The CRDs the API classes generate, computed once per test JVM. */
public final class GeneratedCrds {
  /** File names of the generated CRDs, one per kind. */
  public static final List<String> FILES = List.of(
      "shardsortjobs.quarry.dev-v1.yml", "datasetsyncs.quarry.dev-v1.yml", "nodecaches.quarry.dev-v1.yml",
      "nodecachereports.quarry.dev-v1.yml");

  private static final Map<String, String> YAML = CrdYaml.generate();

  private GeneratedCrds() {}

  /** The generated YAML of {@code file}. */
  public static String yaml(String file) {
    String yaml = YAML.get(file);
    if (yaml == null) {
      throw new IllegalStateException("Cannot find generated CRD " + file + " among " + YAML.keySet());
    }
    return yaml;
  }

  /** The generated CRD of {@code file}, parsed. */
  public static CustomResourceDefinition crd(String file) {
    return Serialization.unmarshal(yaml(file), CustomResourceDefinition.class);
  }
}
