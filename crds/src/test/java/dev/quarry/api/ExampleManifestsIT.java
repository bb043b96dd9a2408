package dev.quarry.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.shardsort.ShardSortJob;
import dev.quarry.api.shardsort.ShardSortJobSpec;
import dev.quarry.api.shardsort.ShardSortJobStatus;
import dev.quarry.api.shardsort.ShardSortPhase;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.KubeApi;
import dev.quarry.testkit.KubeApiExtension;
import dev.quarry.testkit.RepositoryRoot;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
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

  /**
   * The output-format rule refuses only a format unlike the names the template gives: with a keymap order (whose lines
   * name the shards), names with another extension or none, the same format in upper case, and {@code .tgz} for
   * tar.gz are accepted (the refused case is a fixture in crds/src/test/resources/invalid).
   */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "keymap | s3://datasets/split/{00..}.tar | zip",
      "shuffle | s3://datasets/out/x-{00..}.shard | zip",
      "shuffle | s3://datasets/out/x-{00..} | msgpack",
      "shuffle | s3://datasets/out/X-{00..}.ZIP | zip",
      "shuffle | s3://datasets/out/x-{00..}.tgz | tar.gz",
      "shuffle | s3://datasets/out/x-{00..}.tar.lz4 | tar.lz4"})
  void anOutputFormatAgreeingWithTheNamesIsAccepted(String kind, String template, String format, @TempDir Path dir)
      throws Exception {
    String order = kind.equals("keymap") ? "{kind: keymap, keymap: {separator: \" \", inline: \"a.* a-{0..}.zip\"}}"
        : "{kind: shuffle, seed: 1}";
    Path manifest = dir.resolve("job.yaml");
    Files.writeString(manifest, """
        apiVersion: quarry.dev/v1alpha1
        kind: ShardSortJob
        metadata:
          name: format-%s
        spec:
          store: {endpoint: "http://minio:9000"}
          input: {template: "s3://datasets/in/train-{000..009}.tar"}
          output: {template: "%s", format: %s, shardSize: 256Mi}
          order: %s
        """.formatted(Integer.toHexString(template.hashCode()), template, format, order));
    CommandResult result = api.kubectl("apply", "--dry-run=server", "-n", namespace, "-f", manifest.toString());
    assertThat(result.exitCode()).as(result.stderr()).isZero();
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
    assertThat(lines.get(0).split("\\s+"))
        .containsExactly("NAME", "PHASE", "PROGRESS", "RECORDS", "SHARDS", "READY", "REASON", "AGE");
    assertThat(lines.get(1).split("\\s+"))
        .startsWith("imagenet-shuffle", "Creating", "42%", "1281167", "3/8", "False", "Creating");
    CommandResult wide = api.kubectl("get", "ssj", "-n", namespace, "-o", "wide");
    assertThat(wide.stdout().lines().toList().get(0).split("\\s+")).containsSubsequence("REASON", "MESSAGE", "AGE");
    assertThat(wide.stdout()).contains("Writing output shards: 3 of 8 done");
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
  void aShardSortJobTakesNoSpecChangeButAbortOnceCreated(KubernetesClient client) throws Exception {
    String manifest = Files.readString(RepositoryRoot.find().resolve("docs/examples/shardsortjob-shuffle.yaml"))
        .replace("name: imagenet-shuffle", "name: immutable-spec");
    ShardSortJob job = client.getKubernetesSerialization().unmarshal(manifest, ShardSortJob.class);
    job.getMetadata().setNamespace(namespace);
    client.resource(job).create();
    Map<String, String> changes = Map.of(
        "input", manifest.replace("train-{000000..001281}.tar", "train-{000000..000099}.tar"),
        "output", manifest.replace("shardSize: 256Mi", "shardSize: 512Mi"),
        "order", manifest.replace("seed: 20261121", "seed: 7"),
        "workers", manifest.replace("memoryBudget: 2Gi", "memoryBudget: 1Gi"),
        "policies removed",
        manifest.replace("  policies:\n    duplicatedRecords: warn\n    missingShards: abort\n", ""),
        "scratch added", manifest.replace("  order:\n", "  scratch: s3://datasets/.quarry-scratch/other/\n  order:\n"),
        "dryRun", manifest.replace("  order:\n", "  dryRun: true\n  order:\n"));
    for (Map.Entry<String, String> change : changes.entrySet()) {
      CommandResult result = replaceDryRun(change.getValue());
      assertThat(result.exitCode()).as(change.getKey() + ": " + result.stdout()).isNotZero();
      assertThat(result.stderr()).as(change.getKey()).contains("spec: Invalid value: \"object\": only spec.abort"
          + " can be changed once the job exists: the job runs the spec it was created with; to run another, delete"
          + " this ShardSortJob and create it again");
    }
    CommandResult abort = replaceDryRun(manifest.replace("  order:\n", "  abort: true\n  order:\n"));
    assertThat(abort.exitCode()).as(abort.stderr()).isZero();
    CommandResult same = replaceDryRun(manifest);
    assertThat(same.exitCode()).as("re-applying the same spec: " + same.stderr()).isZero();
    client.resource(job).delete();
  }

  @Test
  void conditionsAreKeyedByTypeAndTakeOnlyTheStandardStatuses(KubernetesClient client) throws Exception {
    ShardSortJob created = createExampleJob(client, "conditions");
    KubernetesClientException duplicate = catchThrowableOfType(KubernetesClientException.class,
        () -> writeStatus(client, created, condition("Ready", "False"), condition("Ready", "True")));
    assertThat(duplicate.getMessage()).contains("status.conditions[1]: Duplicate value:").contains("\"Ready\"");
    KubernetesClientException yes = catchThrowableOfType(KubernetesClientException.class,
        () -> writeStatus(client, created, condition("Ready", "Yes")));
    assertThat(yes.getMessage()).contains("status.conditions[0].status: Unsupported value: \"Yes\": supported values:"
        + " \"False\", \"True\", \"Unknown\"");
    client.resource(created).delete();
  }

  @Test
  void kubectlGetQuarryListsTheUsersKinds(KubernetesClient client) throws Exception {
    ShardSortJob job = createExampleJob(client, "listed");
    for (String example : List.of("datasetsync-push.yaml", "nodecache.yaml")) {
      CommandResult applied = api.kubectl("apply", "-n", namespace, "-f",
          RepositoryRoot.find().resolve("docs/examples").resolve(example).toString());
      assertThat(applied.exitCode()).as(applied.stderr()).isZero();
    }
    CommandResult get = api.kubectl("get", "quarry", "-A", "-o", "name");
    assertThat(get.exitCode()).as(get.stderr()).isZero();
    assertThat(get.stdout().lines()).contains("shardsortjob.quarry.dev/" + job.getMetadata().getName(),
        "datasetsync.quarry.dev/coco-push", "nodecache.quarry.dev/training-images");
    api.kubectl("delete", "nodecache", "training-images");
  }

  @Test
  void kubectlWaitForReadyIgnoresAReadyConditionOfAnOlderGeneration(KubernetesClient client) throws Exception {
    ShardSortJob created = createExampleJob(client, "waited");
    String name = "ssj/" + created.getMetadata().getName();
    CommandResult notYet = api.kubectl("wait", "-n", namespace, "--for=condition=Ready", "--timeout=1s", name);
    assertThat(notYet.exitCode()).as("no status yet: " + notYet.stdout()).isNotZero();
    assertThat(notYet.stderr()).contains("timed out waiting for the condition");

    writeStatus(client, created, condition("Ready", "True").toBuilder().withObservedGeneration(1L).build());
    CommandResult met = api.kubectl("wait", "-n", namespace, "--for=condition=Ready", "--timeout=10s", name);
    assertThat(met.exitCode()).as(met.stderr()).isZero();
    assertThat(met.stdout()).contains("shardsortjob.quarry.dev/waited condition met");

    // A new generation (here abort, the one change a job takes): Ready of generation 1 no longer counts.
    client.resources(ShardSortJob.class).inNamespace(namespace).withName("waited").edit(job -> {
      ShardSortJob copy = client.getKubernetesSerialization().clone(job);
      copy.setSpec(new ShardSortJobSpec(job.getSpec().store(), job.getSpec().input(), job.getSpec().output(),
          job.getSpec().order(), job.getSpec().policies(), job.getSpec().workers(), job.getSpec().scratch(),
          job.getSpec().dryRun(), job.getSpec().overwrite(), true));
      return copy;
    });
    CommandResult stale = api.kubectl("wait", "-n", namespace, "--for=condition=Ready", "--timeout=1s", name);
    assertThat(stale.exitCode()).as("Ready of an older generation: " + stale.stdout()).isNotZero();
    client.resource(created).delete();
  }

  private ShardSortJob createExampleJob(KubernetesClient client, String name) throws Exception {
    Path example = RepositoryRoot.find().resolve("docs/examples/shardsortjob-shuffle.yaml");
    ShardSortJob job = client.getKubernetesSerialization().unmarshal(Files.readString(example), ShardSortJob.class);
    job.getMetadata().setName(name);
    job.getMetadata().setNamespace(namespace);
    return client.resource(job).create();
  }

  private static Condition condition(String type, String status) {
    return new ConditionBuilder().withType(type).withStatus(status).withReason("Testing").withMessage("testing")
        .withLastTransitionTime("2026-11-21T21:00:00Z").build();
  }

  /** Replaces the status of {@code job} with one holding {@code conditions}. */
  private static void writeStatus(KubernetesClient client, ShardSortJob job, Condition... conditions) {
    ShardSortJob update = client.resource(job).get();
    update.setStatus(new ShardSortJobStatus(job.getMetadata().getGeneration(), ShardSortPhase.Pending, null,
        null, null, null, null, null, null, null, null, null, List.of(conditions)));
    client.resource(update).updateStatus();
  }

  private CommandResult replaceDryRun(String manifest) throws Exception {
    Path file = Files.writeString(Files.createTempFile("shardsortjob-", ".yaml"), manifest);
    try {
      return api.kubectl("replace", "--dry-run=server", "-n", namespace, "-f", file.toString());
    } finally {
      Files.delete(file);
    }
  }

  @Test
  void shortNamesWork() throws Exception {
    for (String shortName : List.of("ssj", "dss", "nc")) {
      CommandResult result = api.kubectl("get", shortName, "-A");
      assertThat(result.exitCode()).as(shortName + ": " + result.stderr()).isZero();
    }
  }
}
