package dev.quarry.api;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import dev.quarry.api.datasetsync.DatasetSync;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCacheReport;
import dev.quarry.api.shardsort.ShardSortJob;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crdv2.generator.CRDGenerator;
import io.fabric8.crdv2.generator.CRDGenerator.CRDOutput;
import io.fabric8.crdv2.generator.CRDPostProcessor;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.CustomResource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Generates the CRD YAML of every kind with fabric8's crd-generator. A post-processor adds what it has no annotation
 * for: printer columns in the order the kind class declares them (its Maven plugin sorts them by JSON path, which
 * would put AGE first), the descriptions of the kind, its spec and its status (from their classes'
 * {@link JsonClassDescription}), and {@code status.conditions} as a list map keyed by {@code type}.
 */
public final class CrdYaml {
  /** The kinds, in the order their CRDs are listed. */
  public static final List<Class<? extends CustomResource<?, ?>>> KINDS =
      List.of(ShardSortJob.class, DatasetSync.class, NodeCache.class, NodeCacheReport.class);

  private CrdYaml() {}

  /** File name to YAML text, for every kind. */
  public static Map<String, String> generate() {
    Map<String, ByteArrayOutputStream> outputs = new TreeMap<>();
    CRDGenerator generator = new CRDGenerator()
        .customResourceClasses(KINDS.stream().<Class<? extends HasMetadata>>map(k -> k).toList())
        .forCRDVersions("v1")
        .withPostProcessor(new KindConventions())
        .withOutput(new InMemoryOutput(outputs));
    generator.generate();
    Map<String, String> yaml = new TreeMap<>();
    outputs.forEach((name, bytes) -> yaml.put(name, bytes.toString(StandardCharsets.UTF_8)));
    return yaml;
  }

  /** Writes every CRD into each directory given: {@code CrdYaml crds/yaml charts/quarry/crds}. */
  public static void main(String[] directories) throws IOException {
    Map<String, String> yaml = generate();
    for (String directory : directories) {
      Path dir = Path.of(directory);
      Files.createDirectories(dir);
      for (Map.Entry<String, String> crd : yaml.entrySet()) {
        Files.writeString(dir.resolve(crd.getKey()), crd.getValue());
      }
      System.out.println("Wrote " + yaml.keySet() + " into " + dir.toAbsolutePath().normalize());
    }
  }

  /** What the generator has no annotation for; it takes one post-processor, so this one does it all. */
  private static final class KindConventions implements CRDPostProcessor {
    @Override
    public HasMetadata process(HasMetadata generated, String crdSpecVersion) {
      CustomResourceDefinition crd = (CustomResourceDefinition) generated;
      Class<?> kind = kindOf(crd);
      for (CustomResourceDefinitionVersion version : crd.getSpec().getVersions()) {
        putColumnsInDeclaredOrder(kind, version);
        describeKindSpecAndStatus(kind, version.getSchema().getOpenAPIV3Schema());
        JSONSchemaProps conditions = version.getSchema().getOpenAPIV3Schema().getProperties().get("status")
            .getProperties().get("conditions");
        // Each condition type appears once, and server-side apply merges conditions by type.
        conditions.setXKubernetesListType("map");
        conditions.setXKubernetesListMapKeys(List.of("type"));
      }
      return crd;
    }

    /** The order of the kind class's {@link AdditionalPrinterColumn} annotations. */
    private static void putColumnsInDeclaredOrder(Class<?> kind, CustomResourceDefinitionVersion version) {
      List<String> declared = Arrays.stream(kind.getAnnotationsByType(AdditionalPrinterColumn.class))
          .map(AdditionalPrinterColumn::jsonPath)
          .toList();
      version.getAdditionalPrinterColumns()
          .sort(Comparator.comparingInt((CustomResourceColumnDefinition c) -> declared.indexOf(c.getJsonPath())));
    }

    /** From the {@link JsonClassDescription} of the kind class and of its spec and status classes. */
    private static void describeKindSpecAndStatus(Class<?> kind, JSONSchemaProps root) {
      Type[] specAndStatus = ((ParameterizedType) kind.getGenericSuperclass()).getActualTypeArguments();
      root.setDescription(descriptionOf(kind));
      root.getProperties().get("spec").setDescription(descriptionOf((Class<?>) specAndStatus[0]));
      root.getProperties().get("status").setDescription(descriptionOf((Class<?>) specAndStatus[1]));
    }

    private static String descriptionOf(Class<?> type) {
      JsonClassDescription description = type.getAnnotation(JsonClassDescription.class);
      if (description == null) {
        throw new IllegalStateException("Cannot describe " + type.getName() + " in its CRD: it has no"
            + " @JsonClassDescription");
      }
      return description.value();
    }
  }

  private static Class<? extends CustomResource<?, ?>> kindOf(CustomResourceDefinition crd) {
    return KINDS.stream()
        .filter(kind -> HasMetadata.getKind(kind).equals(crd.getSpec().getNames().getKind()))
        .findFirst()
        .orElseThrow();
  }

  private record InMemoryOutput(Map<String, ByteArrayOutputStream> outputs) implements CRDOutput<ByteArrayOutputStream> {
    @Override
    public ByteArrayOutputStream outputFor(String crdName) {
      return outputs.computeIfAbsent(crdName + ".yml", name -> new ByteArrayOutputStream());
    }

    @Override
    public java.net.URI crdURI(String crdName) {
      return java.nio.file.Path.of("/memory", crdName + ".yml").toUri();
    }

    @Override
    public void close() {}
  }
}
