package dev.quarry.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.shardsort.ShardSortJob;
import dev.quarry.api.shardsort.ShardSortJobStatus;
import dev.quarry.api.shardsort.ShardSortPhase;
import dev.quarry.testkit.KubeApi;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.KubeApiExtension;
import dev.quarry.testkit.RepositoryRoot;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The CRDs on a real API server: examples are accepted, mistakes are refused with the rule's message. */
@ExtendWith(KubeApiExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExampleManifestsIT {
  private final KubeApi api;
  private final String namespace;

  ExampleManifestsIT(KubeApi api) {
    this.api = api;
    this.namespace = api.createNamespace("examples");
  }

  static List<Path> valid() {
    return ExampleManifests.valid();
  }

  static List<Path> invalid() {
    return ExampleManifests.invalid();
  }

  @Test
  void everyCrdIsInstalledAndEstablished() {
    assertThat(api.crdNames()).contains(
        "datasetsyncs.quarry.dev", "nodecaches.quarry.dev", "shardsortjobs.quarry.dev");
  }

  @ParameterizedTest
  @MethodSource("valid")
  void exampleIsAcceptedByServerSideDryRun(Path manifest) throws Exception {
    CommandResult result = api.kubectl("apply", "--dry-run=server", "-n", namespace, "-f", manifest.toString());
    assertThat(result.exitCode()).as(result.stderr()).isZero();
    assertThat(result.stdout()).contains("(server dry run)");
  }

  @ParameterizedTest
  @MethodSource("invalid")
  void invalidManifestIsRefusedWithTheRulesMessage(Path manifest) throws Exception {
    CommandResult result = api.kubectl("apply", "--dry-run=server", "-n", namespace, "-f", manifest.toString());
    assertThat(result.exitCode()).as(result.stdout()).isNotZero();
    assertThat(result.stderr()).contains(ExampleManifests.expectedRefusal(manifest));
  }

  @Test
  void statusIsPatchedWithServerSideApplyAndShownByKubectlGet(KubernetesClient client) throws Exception {
    Path example = RepositoryRoot.find().resolve("docs/examples/shardsortjob-shuffle.yaml");
    ShardSortJob job = client.getKubernetesSerialization().unmarshal(Files.readString(example), ShardSortJob.class);
    job.getMetadata().setNamespace(namespace);
    ShardSortJob created = client.resource(job).create();

    // A fresh object with only name, namespace and status: what the operator's status writer sends.
    ShardSortJob statusOnly = new ShardSortJob();
    statusOnly.setMetadata(new ObjectMetaBuilder().withName(created.getMetadata().getName())
        .withNamespace(namespace).build());
    statusOnly.setStatus(new ShardSortJobStatus(created.getMetadata().getGeneration(), ShardSortPhase.Creating,
        "42%", 1281167L, "3/8", 3L, 8L, null, null, null, null, null, List.of(new ConditionBuilder()
            .withType("Ready").withStatus("False").withReason("Creating")
            .withMessage("Writing output shards: 3 of 8 done").withLastTransitionTime("2026-11-21T21:00:00Z")
            .withObservedGeneration(created.getMetadata().getGeneration()).build())));
    client.resources(ShardSortJob.class).inNamespace(namespace).withName(created.getMetadata().getName())
        .subresource("status")
        .patch(new PatchContext.Builder().withPatchType(PatchType.SERVER_SIDE_APPLY)
            .withFieldManager("quarry-operator").withForce(true).build(), statusOnly);

    ShardSortJob read = client.resources(ShardSortJob.class).inNamespace(namespace)
        .withName(created.getMetadata().getName()).get();
    assertThat(read.getStatus().phase()).isEqualTo(ShardSortPhase.Creating);
    assertThat(read.getStatus().conditions()).singleElement()
        .satisfies(c -> assertThat(c.getMessage()).isEqualTo("Writing output shards: 3 of 8 done"));
    assertThat(read.getSpec()).as("a status patch leaves the spec alone").isEqualTo(created.getSpec());

    CommandResult get = api.kubectl("get", "ssj", "-n", namespace);
    assertThat(get.exitCode()).as(get.stderr()).isZero();
    List<String> lines = get.stdout().lines().toList();
    assertThat(lines.get(0).split("\\s+")).containsExactly("NAME", "PHASE", "PROGRESS", "RECORDS", "SHARDS", "AGE");
    assertThat(lines.get(1).split("\\s+")).startsWith("imagenet-shuffle", "Creating", "42%", "1281167", "3/8");
  }

  @Test
  void aNodeCachesHostPathsCannotChangeOnceCreated(KubernetesClient client) throws Exception {
    Path example = RepositoryRoot.find().resolve("docs/examples/nodecache.yaml");
    NodeCache cache = client.getKubernetesSerialization().unmarshal(Files.readString(example), NodeCache.class);
    cache.getMetadata().setName("immutable-paths");
    client.resource(cache).create();
    String manifest = Files.readString(example).replace("name: training-images", "name: immutable-paths");
    Path moved = Files.writeString(Files.createTempFile("nodecache-", ".yaml"),
        manifest.replace("mountRoot: /mnt/quarry", "mountRoot: /mnt/quarry/elsewhere")
            .replace("directory: /var/lib/quarry/cache", "directory: /var/lib/quarry/other"));
    CommandResult result = api.kubectl("apply", "--dry-run=server", "-f", moved.toString());
    assertThat(result.exitCode()).as(result.stdout()).isNotZero();
    assertThat(result.stderr()).contains("spec.mountRoot: Invalid value: \"object\": mountRoot cannot be changed:"
        + " delete the NodeCache (its agents unmount its images) and create it again")
        .contains("spec.cache.directory: Invalid value: \"object\": cache.directory cannot be changed");
    Files.delete(moved);
    client.resource(cache).delete();
  }

  @Test
  void aShardSortJobsStoreCannotChangeOnceCreated(KubernetesClient client) throws Exception {
    Path example = RepositoryRoot.find().resolve("docs/examples/shardsortjob-shuffle.yaml");
    ShardSortJob job = client.getKubernetesSerialization().unmarshal(Files.readString(example), ShardSortJob.class);
    job.getMetadata().setName("immutable-store");
    client.resource(job).create();
    String manifest = Files.readString(example).replace("name: imagenet-shuffle", "name: immutable-store");
    Path moved = Files.writeString(Files.createTempFile("shardsortjob-", ".yaml"),
        manifest.replace("http://minio.storage.svc:9000", "http://elsewhere.example:9000"));
    CommandResult result = api.kubectl("apply", "--dry-run=server", "-f", moved.toString());
    assertThat(result.exitCode()).as(result.stdout()).isNotZero();
    assertThat(result.stderr()).contains("spec.store: Invalid value: \"object\": store cannot be changed once the"
        + " job exists");
    Files.delete(moved);
    client.resource(job).delete();
  }

  @Test
  void kubectlExplainShowsTheFieldDescriptions() throws Exception {
    CommandResult explain = api.kubectl("explain", "shardsortjob.spec.order.seed");
    assertThat(explain.exitCode()).as(explain.stderr()).isZero();
    assertThat(explain.stdout()).contains("The same seed and input give the same output");
  }

  @Test
  void shortNamesWork() throws Exception {
    for (String shortName : List.of("ssj", "dss", "nc")) {
      CommandResult result = api.kubectl("get", shortName, "-A");
      assertThat(result.exitCode()).as(shortName + ": " + result.stderr()).isZero();
    }
  }
}
