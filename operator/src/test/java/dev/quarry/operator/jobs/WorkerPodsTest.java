package dev.quarry.operator.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.common.SecretKeys;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The S3 connection and credentials every worker pod gets, under each of the admin's settings. */
class WorkerPodsTest {
  private static final ObjectStore WITHOUT_SECRET = new ObjectStore("http://minio.storage:9000", null, null, null);
  private static final ObjectStore WITH_SECRET = new ObjectStore("http://minio.storage:9000", null, null,
      new SecretKeys("s3-credentials", null, null));

  private static Map<String, String> values(List<EnvVar> env) {
    return env.stream().filter(v -> v.getValue() != null).collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
  }

  private static List<EnvVar> env(boolean ambientCredentials, ObjectStore store) {
    WorkerSettings settings = new WorkerSettings("quarry-worker:1", "IfNotPresent", null, 60, EndpointAllowlist.ANY,
        ambientCredentials);
    return new WorkerPods(settings).spec(store, List.of("sync", "status"), null, List.of()).build().getContainers()
        .get(0).getEnv();
  }

  /** The chart's default: a resource without a Secret sends unsigned requests, and the metadata endpoint is off. */
  @Test
  void withoutAmbientCredentialsWorkersSignOnlyWithTheirResourcesSecret() {
    for (ObjectStore store : new ObjectStore[] {WITHOUT_SECRET, WITH_SECRET, null}) {
      assertThat(values(env(false, store))).as("store %s", store)
          .containsEntry("QUARRY_S3_AMBIENT_CREDENTIALS", "false")
          .containsEntry("AWS_EC2_METADATA_DISABLED", "true");
    }
    assertThat(env(false, WITHOUT_SECRET)).extracting(EnvVar::getName).doesNotContain("AWS_ACCESS_KEY_ID");
    assertThat(env(false, WITH_SECRET)).extracting(EnvVar::getName)
        .contains("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY");
  }

  /** Allowed by the admin (IRSA, workload identity): the default chain of the pod, the metadata endpoint on. */
  @Test
  void withAmbientCredentialsWorkersUseThePodsIdentity() {
    for (ObjectStore store : new ObjectStore[] {WITHOUT_SECRET, WITH_SECRET, null}) {
      assertThat(values(env(true, store))).as("store %s", store)
          .containsEntry("QUARRY_S3_AMBIENT_CREDENTIALS", "true")
          .doesNotContainKey("AWS_EC2_METADATA_DISABLED");
    }
  }
}
