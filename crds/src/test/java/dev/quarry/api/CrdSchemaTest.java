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
  /** Properties whose schema follows Kubernetes' own types, whose numbers Kubernetes bounds its own way. */
  private static final Set<String> KUBERNETES_TYPED = Set.of("conditions", "tolerations", "resources");
  private static final String READY = ".status.conditions[?(@.type==\"Ready\")]";

  @Test
  void shardSortJobNamesAndColumns() {
    CustomResourceDefinition crd = GeneratedCrds.crd("shardsortjobs.quarry.dev-v1.yml");
    assertThat(crd.getSpec().getGroup()).isEqualTo("quarry.dev");
    assertThat(crd.getSpec().getScope()).isEqualTo("Namespaced");
    assertThat(crd.getSpec().getNames().getPlural()).isEqualTo("shardsortjobs");
    assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("ssj");
    assertThat(columns(crd)).containsExactly(
        "Phase=.status.phase", "Progress=.status.progress", "Records=.status.records", "Shards=.status.shards",
        "Ready=" + READY + ".status", "Reason=" + READY + ".reason",
        "Message=" + READY + ".message", "Age=.metadata.creationTimestamp");
  }

  @Test
  void datasetSyncNamesAndColumns() {
    CustomResourceDefinition crd = GeneratedCrds.crd("datasetsyncs.quarry.dev-v1.yml");
    assertThat(crd.getSpec().getScope()).isEqualTo("Namespaced");
    assertThat(crd.getSpec().getNames().getPlural()).isEqualTo("datasetsyncs");
    assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("dss");
    assertThat(columns(crd)).containsExactly(
        "Operation=.spec.operation", "Phase=.status.phase", "Files=.status.files", "Bytes=.status.bytes",
        "Version=.status.version",
        "Ready=" + READY + ".status", "Reason=" + READY + ".reason", "Message=" + READY + ".message",
        "Age=.metadata.creationTimestamp");
  }

  @Test
  void nodeCacheIsClusterScoped() {
    CustomResourceDefinition crd = GeneratedCrds.crd("nodecaches.quarry.dev-v1.yml");
    assertThat(crd.getSpec().getScope()).isEqualTo("Cluster");
    assertThat(crd.getSpec().getNames().getPlural()).isEqualTo("nodecaches");
    assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("nc");
    assertThat(columns(crd)).containsExactly(
        "Phase=.status.phase", "Nodes=.status.nodes", "Copies=.status.cachedCopies", "Hit=.status.hitRatio",
        "Ready=" + READY + ".status", "Reason=" + READY + ".reason",
        "Message=" + READY + ".message", "Age=.metadata.creationTimestamp");
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
  void theKindSpecStatusAndEveryPropertyHaveADescription(String file) {
    List<String> undocumented = new ArrayList<>();
    JSONSchemaProps root = schema(onlyVersion(GeneratedCrds.crd(file)));
    if (root.getDescription() == null || root.getDescription().isBlank()) {
      undocumented.add("(the kind)");
    }
    for (String part : List.of("spec", "status")) {
      JSONSchemaProps props = root.getProperties().get(part);
      if (props.getDescription() == null || props.getDescription().isBlank()) {
        undocumented.add(part);
      }
      walk(part, props, true, (path, child) -> {
        if (child.getDescription() == null || child.getDescription().isBlank()) {
          undocumented.add(path);
        }
      });
    }
    assertThat(undocumented).as("properties without a description in " + file).isEmpty();
  }

  @ParameterizedTest
  @FieldSource("dev.quarry.api.GeneratedCrds#FILES")
  void conditionsAreAListMapKeyedByTypeWithTheStandardStatuses(String file) {
    JSONSchemaProps conditions = schema(onlyVersion(GeneratedCrds.crd(file))).getProperties().get("status")
        .getProperties().get("conditions");
    assertThat(conditions.getXKubernetesListType()).isEqualTo("map");
    assertThat(conditions.getXKubernetesListMapKeys()).containsExactly("type");
    JSONSchemaProps condition = conditions.getItems().getSchema();
    assertThat(condition.getRequired()).contains("type", "status");
    assertThat(enumOf(condition.getProperties().get("status"))).containsExactlyInAnyOrder("True", "False", "Unknown");
  }

  @ParameterizedTest
  @FieldSource("dev.quarry.api.GeneratedCrds#FILES")
  void everyKindShowsReadyAndReasonAndTheMessageInWideOutput(String file) {
    List<CustomResourceColumnDefinition> columns = onlyVersion(GeneratedCrds.crd(file)).getAdditionalPrinterColumns();
    assertThat(columns).extracting(c -> c.getName() + "=" + c.getJsonPath() + " priority=" + c.getPriority())
        .contains("Ready=" + READY + ".status priority=0", "Reason=" + READY + ".reason priority=0",
            "Message=" + READY + ".message priority=1");
    assertThat(columns.get(columns.size() - 1).getName()).as("AGE stays last").isEqualTo("Age");
  }

  @Test
  void theUsersKindsAreInTheQuarryCategoryButNotTheAgentsReports() {
    for (String file : List.of("shardsortjobs.quarry.dev-v1.yml", "datasetsyncs.quarry.dev-v1.yml",
        "nodecaches.quarry.dev-v1.yml")) {
      assertThat(GeneratedCrds.crd(file).getSpec().getNames().getCategories()).as(file).containsExactly("quarry");
    }
    // One report per node and NodeCache: a thousand of them would bury the user's own resources.
    assertThat(GeneratedCrds.crd("nodecachereports.quarry.dev-v1.yml").getSpec().getNames().getCategories())
        .isNullOrEmpty();
  }

  @ParameterizedTest
  @FieldSource("dev.quarry.api.GeneratedCrds#FILES")
  void everySpecNumberIsBounded(String file) {
    List<String> unbounded = new ArrayList<>();
    walk("spec", schema(onlyVersion(GeneratedCrds.crd(file))).getProperties().get("spec"), false, (path, props) -> {
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

  /** Where workers run is the resource's to choose; how they are secured is only the admin's (chart values). */
  @Test
  void workersMayBePlacedPerResourceButNotSecured() {
    JSONSchemaProps sortWorkers = specOf("shardsortjobs.quarry.dev-v1.yml").getProperties().get("workers");
    JSONSchemaProps sync = specOf("datasetsyncs.quarry.dev-v1.yml");
    for (JSONSchemaProps workers : List.of(sortWorkers, sync)) {
      assertThat(workers.getProperties())
          .containsKeys("resources", "nodeSelector", "tolerations", "affinity", "priorityClassName")
          .doesNotContainKeys("securityContext", "podSecurityContext");
      assertThat(workers.getProperties().get("nodeSelector").getDescription()).contains("Replaces, not merges");
    }
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

  /** Visits every property below {@code props}; into Kubernetes' own types only if {@code intoKubernetesTypes}. */
  private static void walk(String path, JSONSchemaProps props, boolean intoKubernetesTypes, Visitor visitor) {
    if (props.getItems() != null && props.getItems().getSchema() != null) {
      walkProperties(path + "[]", props.getItems().getSchema().getProperties(), intoKubernetesTypes, visitor);
    }
    if (props.getAdditionalProperties() != null && props.getAdditionalProperties().getSchema() != null) {
      walk(path + "{}", props.getAdditionalProperties().getSchema(), intoKubernetesTypes, visitor);
    }
    walkProperties(path, props.getProperties(), intoKubernetesTypes, visitor);
  }

  private static void walkProperties(String path, Map<String, JSONSchemaProps> properties,
      boolean intoKubernetesTypes, Visitor visitor) {
    if (properties == null) {
      return;
    }
    properties.forEach((name, child) -> {
      String childPath = path + "." + name;
      visitor.visit(childPath, child);
      if (intoKubernetesTypes || !KUBERNETES_TYPED.contains(name)) {
        walk(childPath, child, intoKubernetesTypes, visitor);
      }
    });
  }
}
