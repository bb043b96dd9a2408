package dev.quarry.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/** What `kubectl` users rely on in the generated CRDs: names, columns, required fields, enums, rules. */
class CrdSchemaTest {
  /** Properties whose schema comes from Kubernetes' own types, which carry no descriptions. */
  private static final Set<String> KUBERNETES_TYPED = Set.of("conditions", "tolerations", "resources");

  @Test
  void shardSortJobNamesAndColumns() {
    CustomResourceDefinition crd = GeneratedCrds.crd("shardsortjobs.quarry.dev-v1.yml");
    assertThat(crd.getSpec().getGroup()).isEqualTo("quarry.dev");
    assertThat(crd.getSpec().getScope()).isEqualTo("Namespaced");
    assertThat(crd.getSpec().getNames().getPlural()).isEqualTo("shardsortjobs");
    assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("ssj");
    assertThat(columns(crd)).containsExactly(
        "Phase=.status.phase", "Progress=.status.progress", "Records=.status.records", "Shards=.status.shards",
        "Age=.metadata.creationTimestamp");
  }

  @Test
  void datasetSyncNamesAndColumns() {
    CustomResourceDefinition crd = GeneratedCrds.crd("datasetsyncs.quarry.dev-v1.yml");
    assertThat(crd.getSpec().getScope()).isEqualTo("Namespaced");
    assertThat(crd.getSpec().getNames().getPlural()).isEqualTo("datasetsyncs");
    assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("dss");
    assertThat(columns(crd)).containsExactly(
        "Operation=.spec.operation", "Phase=.status.phase", "Files=.status.files", "Bytes=.status.bytes",
        "Version=.status.version", "Age=.metadata.creationTimestamp");
  }

  @Test
  void nodeCacheIsClusterScoped() {
    CustomResourceDefinition crd = GeneratedCrds.crd("nodecaches.quarry.dev-v1.yml");
    assertThat(crd.getSpec().getScope()).isEqualTo("Cluster");
    assertThat(crd.getSpec().getNames().getPlural()).isEqualTo("nodecaches");
    assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("nc");
    assertThat(columns(crd)).containsExactly(
        "Phase=.status.phase", "Nodes=.status.nodes", "Copies=.status.cachedCopies", "Hit=.status.hitRatio",
        "Age=.metadata.creationTimestamp");
  }

  @ParameterizedTest
  @FieldSource("dev.quarry.api.GeneratedCrds#FILES")
  void everyKindHasStatusSubresourceWithObservedGenerationAndConditions(String file) {
    CustomResourceDefinitionVersion version = onlyVersion(GeneratedCrds.crd(file));
    assertThat(version.getName()).isEqualTo("v1alpha1");
    assertThat(version.getSubresources().getStatus()).isNotNull();
    JSONSchemaProps status = schema(version).getProperties().get("status");
    assertThat(status.getProperties()).containsKeys("observedGeneration", "phase", "conditions");
    assertThat(status.getProperties().get("conditions").getItems().getSchema().getProperties())
        .containsKeys("type", "status", "reason", "message", "lastTransitionTime", "observedGeneration");
  }

  @ParameterizedTest
  @FieldSource("dev.quarry.api.GeneratedCrds#FILES")
  void everyOwnFieldHasADescription(String file) {
    List<String> undocumented = new ArrayList<>();
    JSONSchemaProps root = schema(onlyVersion(GeneratedCrds.crd(file)));
    walk("spec", root.getProperties().get("spec"), (path, props) -> {
      if (props.getDescription() == null || props.getDescription().isBlank()) {
        undocumented.add(path);
      }
    });
    walk("status", root.getProperties().get("status"), (path, props) -> {
      if (props.getDescription() == null || props.getDescription().isBlank()) {
        undocumented.add(path);
      }
    });
    assertThat(undocumented).as("fields without a description in " + file).isEmpty();
  }

  @ParameterizedTest
  @FieldSource("dev.quarry.api.GeneratedCrds#FILES")
  void everySpecNumberIsBounded(String file) {
    List<String> unbounded = new ArrayList<>();
    walk("spec", schema(onlyVersion(GeneratedCrds.crd(file))).getProperties().get("spec"), (path, props) -> {
      if ("integer".equals(props.getType()) && props.getMinimum() == null) {
        unbounded.add(path);
      }
    });
    assertThat(unbounded).as("spec integers without a minimum in " + file).isEmpty();
  }

  @Test
  void shardSortJobRequiresAndEnumerates() {
    JSONSchemaProps spec = specOf("shardsortjobs.quarry.dev-v1.yml");
    assertThat(spec.getRequired()).containsExactlyInAnyOrder("store", "input", "output", "order");
    JSONSchemaProps order = spec.getProperties().get("order");
    assertThat(order.getRequired()).containsExactly("kind");
    assertThat(enumOf(order.getProperties().get("kind")))
        .containsExactlyInAnyOrder("alphanumeric", "none", "md5", "shuffle", "content", "keymap");
    assertThat(enumOf(spec.getProperties().get("input").getProperties().get("format")))
        .containsExactlyInAnyOrder("tar", "tar.gz", "tar.lz4", "zip", "msgpack");
    JSONSchemaProps policies = spec.getProperties().get("policies");
    assertThat(policies.getProperties()).containsKeys(
        "duplicatedRecords", "missingShards", "keymapMalformedLine", "keymapMissingKey");
    policies.getProperties().values().forEach(policy ->
        assertThat(enumOf(policy)).containsExactlyInAnyOrder("ignore", "warn", "abort"));
    assertThat(rules(order)).contains("!has(self.seed) || self.kind == 'shuffle'");
    assertThat(rules(spec.getProperties().get("input")))
        .contains("[has(self.template), has(self.prefix), has(self.objects)].filter(x, x).size() == 1");
    assertThat(rules(spec.getProperties().get("output")))
        .contains("[has(self.shardSize), has(self.recordsPerShard), has(self.shardCount)].filter(x, x).size() == 1");
  }

  @Test
  void datasetSyncRequiresAndEnumerates() {
    JSONSchemaProps spec = specOf("datasetsyncs.quarry.dev-v1.yml");
    assertThat(spec.getRequired()).containsExactlyInAnyOrder("volume", "remote", "store", "operation");
    assertThat(enumOf(spec.getProperties().get("operation"))).containsExactlyInAnyOrder("Status", "Push", "Pull", "Gc");
    assertThat(spec.getProperties().get("gc").getProperties().get("dryRun").getDefault().asBoolean()).isTrue();
  }

  @Test
  void nodeCacheRequiresAndBounds() {
    JSONSchemaProps spec = specOf("nodecaches.quarry.dev-v1.yml");
    assertThat(spec.getRequired()).containsExactlyInAnyOrder("cache", "images");
    JSONSchemaProps image = spec.getProperties().get("images").getItems().getSchema();
    assertThat(image.getRequired()).containsExactlyInAnyOrder("name", "source");
    assertThat(image.getProperties().get("name").getMaxLength()).isEqualTo(63L);
    assertThat(rules(spec)).contains("self.images.all(i, self.images.exists_one(j, j.name == i.name))");
  }

  private static JSONSchemaProps specOf(String file) {
    return schema(onlyVersion(GeneratedCrds.crd(file))).getProperties().get("spec");
  }

  private static CustomResourceDefinitionVersion onlyVersion(CustomResourceDefinition crd) {
    assertThat(crd.getSpec().getVersions()).hasSize(1);
    return crd.getSpec().getVersions().get(0);
  }

  private static JSONSchemaProps schema(CustomResourceDefinitionVersion version) {
    return version.getSchema().getOpenAPIV3Schema();
  }

  private static List<String> columns(CustomResourceDefinition crd) {
    return onlyVersion(crd).getAdditionalPrinterColumns().stream()
        .map((CustomResourceColumnDefinition c) -> c.getName() + "=" + c.getJsonPath())
        .toList();
  }

  private static List<String> enumOf(JSONSchemaProps props) {
    return props.getEnum().stream().map(node -> node.asText()).toList();
  }

  private static List<String> rules(JSONSchemaProps props) {
    return props.getXKubernetesValidations().stream().map(ValidationRule::getRule).toList();
  }

  private interface Visitor {
    void visit(String path, JSONSchemaProps props);
  }

  private static void walk(String path, JSONSchemaProps props, Visitor visitor) {
    if (props.getItems() != null && props.getItems().getSchema() != null) {
      walkProperties(path + "[]", props.getItems().getSchema().getProperties(), visitor);
    }
    walkProperties(path, props.getProperties(), visitor);
  }

  private static void walkProperties(String path, Map<String, JSONSchemaProps> properties, Visitor visitor) {
    if (properties == null) {
      return;
    }
    properties.forEach((name, child) -> {
      String childPath = path + "." + name;
      visitor.visit(childPath, child);
      if (!KUBERNETES_TYPED.contains(name)) {
        walk(childPath, child, visitor);
      }
    });
  }
}
