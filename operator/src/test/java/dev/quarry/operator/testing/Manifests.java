package dev.quarry.operator.testing;

import dev.quarry.testkit.RepositoryRoot;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;

/** The shipped examples under docs/examples, read as typed resources, so tests run what users copy. */
public final class Manifests {
  private Manifests() {}

  public static <T extends HasMetadata> T example(KubernetesClient client, String file, Class<T> type,
      String namespace, String name) {
    try {
      T resource = client.getKubernetesSerialization().unmarshal(
          Files.readString(RepositoryRoot.find().resolve("docs/examples/" + file)), type);
      resource.getMetadata().setNamespace(namespace);
      resource.getMetadata().setName(name);
      return resource;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A worker's JSON result for a sort step index, in the shape of core's PhaseResult. */
  public static String phaseResult(String phase, int index, long shards, long records, long bytes) {
    return """
        {"phase":"%s","index":%d,"count":8,"startTime":"2026-11-22T01:00:0%dZ","endTime":"2026-11-22T01:01:00Z",
         "elapsedSeconds":55.0,"shards":%d,"records":%d,"bytes":%d,"bytesPerSecond":1000,
         "requests":{"head":1,"list":2,"get":3,"put":4,"delete":0},"problems":{},"warnings":[],
         "details":{"manifests":["s3://datasets/imagenet-shuffled/manifest.json"]}}
        """.formatted(phase, index, index % 10, shards, records, bytes);
  }
}
