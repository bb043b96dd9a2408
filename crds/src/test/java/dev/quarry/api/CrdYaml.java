package dev.quarry.api;

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
import io.fabric8.kubernetes.client.CustomResource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Generates the CRD YAML of every kind with fabric8's crd-generator. Its Maven plugin sorts printer columns by JSON
 * path, which would put AGE first; a post-processor restores the order the kind class declares its columns in.
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
        .withPostProcessor(new DeclaredColumnOrder())
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

  /** Puts the printer columns in the order of the kind class's {@link AdditionalPrinterColumn} annotations. */
  private static final class DeclaredColumnOrder implements CRDPostProcessor {
    @Override
    public HasMetadata process(HasMetadata generated, String crdSpecVersion) {
      CustomResourceDefinition crd = (CustomResourceDefinition) generated;
      List<String> declared = KINDS.stream()
          .filter(kind -> HasMetadata.getKind(kind).equals(crd.getSpec().getNames().getKind()))
          .findFirst()
          .map(kind -> Arrays.stream(kind.getAnnotationsByType(AdditionalPrinterColumn.class))
              .map(AdditionalPrinterColumn::jsonPath)
              .toList())
          .orElseThrow();
      crd.getSpec().getVersions().forEach(version -> version.getAdditionalPrinterColumns()
          .sort(Comparator.comparingInt((CustomResourceColumnDefinition c) -> declared.indexOf(c.getJsonPath()))));
      return crd;
    }
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
