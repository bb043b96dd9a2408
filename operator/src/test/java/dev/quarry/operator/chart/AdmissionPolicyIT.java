package dev.quarry.operator.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.KubeApi;
import dev.quarry.testkit.KubeApiExtension;
import dev.quarry.testkit.RepositoryRoot;
import dev.quarry.testkit.TestTools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The chart's admission policy on a real API server, rendered by the real helm with an admin's values: what the
 * values do not allow is refused at kubectl apply, with the operator's messages; the rest is accepted.
 */
@ExtendWith(KubeApiExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdmissionPolicyIT {
  private final KubeApi api;
  private final String namespace;
  private final Path work;

  AdmissionPolicyIT(KubeApi api) throws Exception {
    this.api = api;
    this.namespace = api.createNamespace("admission");
    this.work = Files.createTempDirectory("quarry-admission");
    // Stored before the policy: an admin narrowed the roots after it was made.
    CommandResult legacy = api.kubectl("apply", "-f", write("legacy.yaml",
        nodeCache("legacy", "/opt/legacy", "/var/lib/quarry/cache", "/mnt/nfs/a.sqfs", null)).toString());
    assertThat(legacy.exitCode()).as(legacy.stderr()).isZero();
    String policy = helm("template", "quarry", RepositoryRoot.find().resolve("charts/quarry").toString(),
        "--namespace", "quarry-system", "--show-only", "templates/admission-policy.yaml",
        "--set", "nodeCache.mountRoots={/mnt/quarry,/mnt/fast}", "--set", "nodeCache.sourceRoots={/mnt/nfs}",
        "--set", "storeEndpoints={http://minio.storage:9000/}", "--set",
        "nodeCache.credentialsSecrets={s3-credentials,cache-keys}");
    CommandResult applied = api.kubectl("apply", "-f", write("policy.yaml", policy).toString());
    assertThat(applied.exitCode()).as(applied.stderr()).isZero();
    // The API server compiles a new policy in the background: wait until it refuses.
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() ->
        apply(nodeCache("probe", "/etc", "/var/lib/quarry/cache", "/mnt/nfs/a.sqfs", null)).exitCode() != 0);
  }

  @Test
  void aNodeCacheUnderTheRootsWithAnAllowedEndpointIsAccepted() throws Exception {
    CommandResult result = apply(nodeCache("fine", "/mnt/fast", "/var/lib/quarry/nvme", "/mnt/nfs/a.sqfs",
        "http://minio.storage:9000"));
    assertThat(result.exitCode()).as(result.stderr()).isZero();
  }

  @Test
  void aMountRootOutsideTheRootsIsRefused() throws Exception {
    assertRefused(nodeCache("mount-root", "/etc", "/var/lib/quarry/cache", "/mnt/nfs/a.sqfs", null),
        "Invalid spec.mountRoot: /etc (must be under /mnt/quarry or /mnt/fast, the roots the cluster admin allows in"
            + " the chart value nodeCache.mountRoots)");
    assertRefused(nodeCache("look-alike", "/mnt/quarryx", "/var/lib/quarry/cache", "/mnt/nfs/a.sqfs", null),
        "Invalid spec.mountRoot: /mnt/quarryx");
  }

  @Test
  void aCacheDirectoryOutsideTheRootsIsRefused() throws Exception {
    assertRefused(nodeCache("cache", "/mnt/quarry", "/root/.ssh", "/mnt/nfs/a.sqfs", null),
        "Invalid spec.cache.directory: /root/.ssh (must be under /var/lib/quarry, the roots the cluster admin allows"
            + " in the chart value nodeCache.cacheRoots)");
  }

  @Test
  void aPathSourceOutsideTheRootsIsRefused() throws Exception {
    assertRefused(nodeCache("source", "/mnt/quarry", "/var/lib/quarry/cache", "/etc/shadow", null),
        "Invalid spec.images[].source: /etc/shadow (must be under /mnt/nfs, the roots the cluster admin allows in"
            + " the chart value nodeCache.sourceRoots)");
  }

  @Test
  void anEndpointNotAllowedIsRefusedForEveryKind() throws Exception {
    String message = "Invalid spec.store.endpoint: http://169.254.169.254 (must be one of the endpoints the cluster"
        + " admin allows: http://minio.storage:9000)";
    assertRefused(nodeCache("endpoint", "/mnt/quarry", "/var/lib/quarry/cache", "s3://images/a.sqfs",
        "http://169.254.169.254"), message);
    assertRefused("""
        apiVersion: quarry.dev/v1alpha1
        kind: ShardSortJob
        metadata: {name: internal}
        spec:
          store: {endpoint: "http://169.254.169.254"}
          input: {prefix: "s3://input/"}
          output: {template: "s3://output/b-{0..}.tar", shardCount: 10}
          order: {kind: none}
        """, message);
    assertRefused("""
        apiVersion: quarry.dev/v1alpha1
        kind: DatasetSync
        metadata: {name: internal}
        spec:
          volume: {claimName: data}
          remote: s3://datasets/cas
          store: {endpoint: "http://169.254.169.254"}
          operation: Status
        """, message);
    CommandResult below = apply("""
        apiVersion: quarry.dev/v1alpha1
        kind: DatasetSync
        metadata: {name: below}
        spec:
          volume: {claimName: data}
          remote: s3://datasets/cas
          store: {endpoint: "http://minio.storage:9000/tenant-a"}
          operation: Status
        """);
    assertThat(below.exitCode()).as(below.stderr()).isZero();
  }

  /** A NodeCache's Secret is in the release namespace: only those the admin listed; a namespaced kind names its own. */
  @Test
  void aNodeCacheMayNameOnlyASecretTheAdminListed() throws Exception {
    String cache = nodeCache("secret", "/mnt/quarry", "/var/lib/quarry/cache", "s3://images/a.sqfs",
        "http://minio.storage:9000");
    CommandResult listed = apply(cache.replace("store: {endpoint: \"http://minio.storage:9000\"}",
        "store: {endpoint: \"http://minio.storage:9000\", credentialsSecret: {name: cache-keys}}"));
    assertThat(listed.exitCode()).as(listed.stderr()).isZero();
    assertRefused(cache.replace("store: {endpoint: \"http://minio.storage:9000\"}",
        "store: {endpoint: \"http://minio.storage:9000\", credentialsSecret: {name: quarry-operator-token}}"),
        "Invalid spec.store.credentialsSecret.name: quarry-operator-token (must be one of the Secrets the cluster"
            + " admin lets NodeCaches use, in the chart value nodeCache.credentialsSecrets: s3-credentials,"
            + " cache-keys)");
    CommandResult namespaced = apply("""
        apiVersion: quarry.dev/v1alpha1
        kind: DatasetSync
        metadata: {name: own-secret}
        spec:
          volume: {claimName: data}
          remote: s3://datasets/cas
          store: {endpoint: "http://minio.storage:9000", credentialsSecret: {name: team-keys}}
          operation: Status
        """);
    assertThat(namespaced.exitCode()).as(namespaced.stderr()).isZero();
  }

  @Test
  void anObjectStoredBeforeThePolicyCanStillBeFinalizedButNotChanged(KubernetesClient client) throws Exception {
    client.resources(NodeCache.class).withName("legacy").edit(nc -> {
      nc.getMetadata().setFinalizers(List.of("quarry.dev/test"));
      return nc;
    });
    client.resources(NodeCache.class).withName("legacy").edit(nc -> {
      nc.getMetadata().setFinalizers(List.of());
      return nc;
    });
    assertRefused(nodeCache("legacy", "/opt/legacy", "/var/lib/quarry/cache", "/mnt/nfs/a.sqfs", null)
        .replace("capacity: 10Gi", "capacity: 20Gi"), "Invalid spec.mountRoot: /opt/legacy");
  }

  @Test
  void onlyTheOperatorRemovesItsFinalizerFromANodeCache() throws Exception {
    CommandResult created = api.kubectl("apply", "-f", write("held.yaml", nodeCache("held", "/mnt/quarry",
        "/var/lib/quarry/cache", "/mnt/nfs/a.sqfs", null).replace("metadata: {name: held}",
            "metadata: {name: held, finalizers: [nodecaches.quarry.dev/finalizer]}")).toString());
    assertThat(created.exitCode()).as(created.stderr()).isZero();
    String removal = "{\"metadata\":{\"finalizers\":null}}";
    // The API server compiles a new policy in the background: wait until it refuses.
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> api.kubectl("patch",
        "nodecaches.quarry.dev", "held", "--type=merge", "--dry-run=server", "-p", removal).exitCode() != 0);
    CommandResult byAuthor = api.kubectl("patch", "nodecaches.quarry.dev", "held", "--type=merge", "-p", removal);
    assertThat(byAuthor.exitCode()).as(byAuthor.stdout()).isNotZero();
    assertThat(byAuthor.stderr()).contains("denied request: Cannot remove the finalizer"
        + " nodecaches.quarry.dev/finalizer of NodeCache held: only the operator removes it, once the agents have"
        + " removed its mounts and copies on the nodes");
    CommandResult byOperator = api.kubectl("patch", "nodecaches.quarry.dev", "held", "--type=merge", "-p", removal,
        "--as=system:serviceaccount:quarry-system:quarry-operator", "--as-group=system:masters");
    assertThat(byOperator.exitCode()).as(byOperator.stderr()).isZero();
  }

  private void assertRefused(String manifest, String message) throws Exception {
    CommandResult result = apply(manifest);
    assertThat(result.exitCode()).as(result.stdout()).isNotZero();
    assertThat(result.stderr()).contains("denied request: " + message);
  }

  private CommandResult apply(String manifest) throws IOException, InterruptedException {
    return api.kubectl("apply", "--dry-run=server", "-n", namespace, "-f", write("resource.yaml", manifest).toString());
  }

  private static String nodeCache(String name, String mountRoot, String cacheDirectory, String source,
      String endpoint) {
    return """
        apiVersion: quarry.dev/v1alpha1
        kind: NodeCache
        metadata: {name: %s}
        spec:
          mountRoot: %s
          cache: {directory: %s, capacity: 10Gi}
          images:
            - {name: data, source: %s, checksum: "sha256:%s"}
        """.formatted(name, mountRoot, cacheDirectory, source, "0".repeat(64))
        + (endpoint == null ? "" : "  store: {endpoint: \"" + endpoint + "\"}\n");
  }

  private Path write(String name, String content) throws IOException {
    return Files.writeString(work.resolve(name), content);
  }

  private static String helm(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(TestTools.binary("helm").toString());
    command.addAll(Arrays.asList(args));
    CommandResult result = CommandResult.run(null, command);
    assertThat(result.exitCode()).as(result.stderr()).isZero();
    return result.stdout();
  }
}
