package dev.quarry.operator.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.common.SecretKeys;
import dev.quarry.api.nodecache.CacheImage;
import dev.quarry.api.nodecache.CachePhase;
import dev.quarry.api.nodecache.ImageReport;
import dev.quarry.api.nodecache.ImageState;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCacheReport;
import dev.quarry.api.nodecache.NodeCacheReportSpec;
import dev.quarry.api.nodecache.NodeCacheReportStatus;
import dev.quarry.api.nodecache.NodeCacheSpec;
import dev.quarry.api.nodecache.NodeCacheStatus;
import dev.quarry.operator.testing.Conflicts;
import dev.quarry.operator.testing.FakeKubelet;
import dev.quarry.operator.testing.KubectlWait;
import dev.quarry.operator.testing.Manifests;
import dev.quarry.operator.testing.RunningOperator;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.KubeApi;
import dev.quarry.testkit.KubeApiExtension;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/** NodeCaches reconciled by the operator on a real API server, with the test playing the agents. */
@ExtendWith(KubeApiExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeCacheIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private final KubernetesClient client;
  private final KubeApi api;
  private final String operatorNamespace;
  private final RunningOperator operator;

  NodeCacheIT(KubeApi api) throws Exception {
    this.api = api;
    this.client = api.client();
    this.operatorNamespace = api.createNamespace("quarry-system");
    new FakeKubelet(client).prepareNamespace(operatorNamespace);
    this.operator = RunningOperator.start(api, operatorNamespace, "cache-test-operator",
        Map.of("QUARRY_STORE_ENDPOINTS", "http://minio.storage.svc:9000",
            "QUARRY_NODECACHE_CREDENTIALS_SECRETS", "s3-credentials,cache-keys"));
  }

  @AfterAll
  void stopOperator() {
    operator.close();
  }

  @Test
  void runsTheAgentsAndSummarizesTheirReports() throws Exception {
    NodeCache cache = client.resource(example("images")).create();
    KubectlWait waitForReady = KubectlWait.forReady(api, null, "nc/images", 120);
    DaemonSet daemonSet = awaitDaemonSet("quarry-agent-images");
    assertThat(daemonSet.getMetadata().getOwnerReferences()).singleElement()
        .satisfies(owner -> assertThat(owner.getUid()).isEqualTo(cache.getMetadata().getUid()));
    assertThat(daemonSet.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo(RunningOperator.AGENT_IMAGE);
    assertThat(daemonSet.getSpec().getTemplate().getSpec().getContainers().get(0).getResources().getRequests())
        .containsKey("memory");

    NodeCacheStatus pending = awaitStatus("images", s -> s.phase() == CachePhase.Pending);
    assertThat(ready(pending).getReason()).isEqualTo("NoNodesSelected");
    assertThat(pending.acceptedGeneration()).as("the spec its agents act on").isEqualTo(1);

    String version = scheduled(daemonSet, 3);
    report("images", "gpu-1", cache.getMetadata().getGeneration(), CachePhase.Ready, ImageState.Cached, 900, 100);
    report("images", "gpu-2", cache.getMetadata().getGeneration(), CachePhase.Ready, ImageState.Source, 0, 300);
    NodeCacheStatus twoOfThree = awaitStatus("images", s -> "2/3".equals(s.nodes()));
    assertThat(twoOfThree.phase()).isEqualTo(CachePhase.Pending);
    assertThat(ready(twoOfThree).getMessage()).startsWith("2/3 nodes ready. 1 nodes have not reported yet");

    report("images", "gpu-3", cache.getMetadata().getGeneration(), CachePhase.Degraded, ImageState.Failed, 0, 0);
    NodeCacheStatus degraded = awaitStatus("images", s -> s.phase() == CachePhase.Degraded);
    assertThat(waitForReady.returned()).as("kubectl wait --for=condition=Ready while a node is degraded").isFalse();
    assertThat(ready(degraded).getMessage()).isEqualTo("2/3 nodes ready. gpu-3: image imagenet: Cannot open"
        + " /mnt/nfs/images/imagenet-2012.sqfs: no such file (is the NFS share mounted on this node?)");

    report("images", "gpu-3", cache.getMetadata().getGeneration(), CachePhase.Ready, ImageState.Cached, 500, 0);
    NodeCacheStatus ready = awaitStatus("images", s -> s.phase() == CachePhase.Ready);
    assertThat(waitForReady.result().exitCode()).as(waitForReady.result().stderr()).isZero();
    assertThat(waitForReady.result().stdout()).contains("nodecache.quarry.dev/images condition met");
    assertThat(ready.nodes()).isEqualTo("3/3");
    assertThat(ready.nodesSelected()).isEqualTo(3);
    assertThat(ready.cachedCopies()).isEqualTo(2);
    assertThat(ready.bytesReadLocal()).isEqualTo(1400);
    assertThat(ready.bytesReadSource()).isEqualTo(400);
    assertThat(ready.hitRatio()).isEqualTo("78%");
    assertThat(ready.images()).filteredOn(image -> image.name().equals("imagenet")).singleElement()
        .satisfies(image -> {
          assertThat(image.mountedNodes()).isEqualTo(3);
          assertThat(image.cachedNodes()).isEqualTo(2);
        });
    assertThat(ready(ready).getStatus()).isEqualTo("True");
    CommandResult get = api.kubectl("get", "nc", "images");
    assertThat(get.stdout().lines().skip(1).findFirst().orElseThrow().split("\\s+"))
        .startsWith("images", "Ready", "3/3", "2", "78%");
    assertThat(client.apps().daemonSets().inNamespace(operatorNamespace).withName("quarry-agent-images").get()
        .getMetadata().getResourceVersion()).as("reconciles since the DaemonSet's status changed did not write it")
        .isEqualTo(version);

    // A new generation: reports of the old one do not count as ready.
    Conflicts.retried(() -> client.resources(NodeCache.class).withName("images").edit(current -> {
      current.getSpec().nodeSelector().put("pool", "a100");
      return current;
    }));
    NodeCacheStatus newGeneration = awaitStatus("images", s -> s.observedGeneration() == 2);
    assertThat(newGeneration.nodesReady()).isZero();
    assertThat(ready(newGeneration).getMessage()).contains("gpu-1: still applying generation 1 of 2");
    assertThat(KubectlWait.forReady(api, null, "nc/images", 2).result().exitCode())
        .as("the agents have not applied generation 2").isNotZero();
    assertThat(awaitDaemonSet("quarry-agent-images").getSpec().getTemplate().getSpec().getNodeSelector())
        .containsEntry("pool", "a100");
  }

  @Test
  void deletionWaitsForLiveAgentsToRemoveTheirReportsButNotForNodesWithoutAgents() throws Exception {
    NodeCache cache = client.resource(example("doomed")).create();
    awaitDaemonSet("quarry-agent-doomed");
    Pod agent = agentPod("doomed", "gpu-1");
    report("doomed", "gpu-1", 1L, CachePhase.Ready, ImageState.Source, 0, 0);
    report("doomed", "gone-node", 1L, CachePhase.Ready, ImageState.Source, 0, 0);
    await().atMost(WAIT).until(() -> !client.resources(NodeCache.class).withName("doomed").get().getMetadata()
        .getFinalizers().isEmpty());

    client.resource(cache).delete();
    Thread.sleep(2000);
    assertThat(client.resources(NodeCache.class).withName("doomed").get())
        .as("the agent on gpu-1 has not cleaned up yet").isNotNull();

    // The agent removes its mounts, then its report: the operator lets the NodeCache go, and removes the report
    // of the node that has no agent any more.
    client.resources(NodeCacheReport.class).withName(NodeCacheReport.nameOf("doomed", "gpu-1")).delete();
    await().atMost(WAIT).until(() -> client.resources(NodeCache.class).withName("doomed").get() == null);
    assertThat(client.resources(NodeCacheReport.class).withName(NodeCacheReport.nameOf("doomed", "gone-node"))
        .get()).isNull();
    client.resource(agent).withGracePeriod(0).delete();
  }

  @Test
  void deletionWaitsForANodeInTheClusterWithoutAnAgentWhoseReportStillShowsMounts() throws Exception {
    NodeCache cache = client.resource(example("stuck")).create();
    awaitDaemonSet("quarry-agent-stuck");
    client.resource(new NodeBuilder().withNewMetadata().withName("left-node").endMetadata().build()).create();
    try {
      report("stuck", "left-node", 1L, CachePhase.Ready, ImageState.Source, 0, 0); // its agent was moved off
      report("stuck", "gone-node", 1L, CachePhase.Ready, ImageState.Source, 0, 0); // left the cluster
      await().atMost(WAIT).until(() -> !client.resources(NodeCache.class).withName("stuck").get().getMetadata()
          .getFinalizers().isEmpty());

      client.resource(cache).delete();
      Thread.sleep(3000);
      assertThat(client.resources(NodeCache.class).withName("stuck").get())
          .as("left-node still has its mounts, and no agent to remove them").isNotNull();

      // An admin runs quarry-agent cleanup there and deletes the report: the NodeCache goes.
      client.resources(NodeCacheReport.class).withName(NodeCacheReport.nameOf("stuck", "left-node")).delete();
      await().atMost(WAIT).until(() -> client.resources(NodeCache.class).withName("stuck").get() == null);
      assertThat(client.resources(NodeCacheReport.class).withName(NodeCacheReport.nameOf("stuck", "gone-node"))
          .get()).as("the node that left the cluster: nobody else would delete its report").isNull();
    } finally {
      client.nodes().withName("left-node").delete();
    }
  }

  @Test
  void aHostPathOutsideTheAdminsRootsOrAnEndpointNotAllowedRunsNoAgent() throws Exception {
    NodeCache outside = example("outside");
    outside.getSpec().images().set(0, new CacheImage("imagenet", "/etc/shadow", null, true, 0));
    client.resource(outside).create();
    NodeCacheStatus refused = awaitStatus("outside", s -> s.phase() == CachePhase.Degraded);
    assertThat(ready(refused).getReason()).isEqualTo("HostPathNotAllowed");
    assertThat(ready(refused).getMessage()).isEqualTo("Invalid spec.images[imagenet].source: /etc/shadow (must be"
        + " under /mnt/nfs, the roots the cluster admin allows in the chart value nodeCache.sourceRoots)");
    assertThat(refused.acceptedGeneration()).as("never accepted: its agents would do nothing").isNull();

    NodeCache internal = example("internal");
    internal.setSpec(new NodeCacheSpec(null, null, internal.getSpec().mountRoot(), internal.getSpec().cache(),
        internal.getSpec().images(), null, new ObjectStore("http://10.0.0.1:8080", null, null, null)));
    client.resource(internal).create();
    NodeCacheStatus endpoint = awaitStatus("internal", s -> s.phase() == CachePhase.Degraded);
    assertThat(ready(endpoint).getReason()).isEqualTo("EndpointNotAllowed");
    assertThat(ready(endpoint).getMessage()).isEqualTo("Invalid spec.store.endpoint: http://10.0.0.1:8080 (must be"
        + " one of the endpoints the cluster admin allows: http://minio.storage.svc:9000)");
    assertThat(client.apps().daemonSets().inNamespace(operatorNamespace).withName("quarry-agent-outside").get())
        .as("no privileged agent runs a refused spec").isNull();
    assertThat(client.apps().daemonSets().inNamespace(operatorNamespace).withName("quarry-agent-internal").get())
        .isNull();
  }

  /**
   * The Secret lives in the operator's namespace, beside the operator's own: a NodeCache may name only those the
   * admin listed, so its agents never carry another Secret's keys to a store.
   */
  @Test
  void aSecretTheAdminDidNotListRunsNoAgent() throws Exception {
    NodeCache other = example("other-secret");
    other.setSpec(new NodeCacheSpec(null, null, other.getSpec().mountRoot(), other.getSpec().cache(),
        other.getSpec().images(), null, new ObjectStore("http://minio.storage.svc:9000", null, null,
            new SecretKeys("quarry-operator-token", null, null))));
    client.resource(other).create();
    NodeCacheStatus refused = awaitStatus("other-secret", s -> s.phase() == CachePhase.Degraded);
    assertThat(ready(refused).getReason()).isEqualTo("SecretNotAllowed");
    assertThat(ready(refused).getMessage()).isEqualTo("Invalid spec.store.credentialsSecret.name:"
        + " quarry-operator-token (must be one of the Secrets the cluster admin lets NodeCaches use, in the chart"
        + " value nodeCache.credentialsSecrets: s3-credentials, cache-keys)");
    assertThat(client.apps().daemonSets().inNamespace(operatorNamespace).withName("quarry-agent-other-secret").get())
        .as("no agent gets that Secret's keys").isNull();

    Conflicts.retried(() -> client.resources(NodeCache.class).withName("other-secret").edit(current -> {
      current.setSpec(new NodeCacheSpec(null, null, current.getSpec().mountRoot(), current.getSpec().cache(),
          current.getSpec().images(), null, new ObjectStore("http://minio.storage.svc:9000", null, null,
              new SecretKeys("cache-keys", null, null))));
      return current;
    }));
    DaemonSet listed = awaitDaemonSet("quarry-agent-other-secret");
    assertThat(listed.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
        .filteredOn(v -> v.getValueFrom() != null && v.getValueFrom().getSecretKeyRef() != null)
        .extracting(v -> v.getValueFrom().getSecretKeyRef().getName()).containsOnly("cache-keys");
    client.resources(NodeCache.class).withName("other-secret").delete();
  }

  @Test
  void theYoungerOfTwoNodeCachesWithTheSameMountPointIsRefusedNamingTheOwner() throws Exception {
    client.resource(example("owner", "/mnt/quarry/shared")).create();
    awaitDaemonSet("quarry-agent-owner");
    // Accepted: within the second both were created in, the NodeCache accepted first keeps the paths.
    awaitStatus("owner", s -> s.phase() == CachePhase.Pending);
    NodeCache second = example("latecomer", "/mnt/quarry/shared");
    second.getSpec().images().subList(1, second.getSpec().images().size()).clear(); // imagenet, as the owner's
    client.resource(second).create();
    NodeCacheStatus refused = awaitStatus("latecomer", s -> s.phase() == CachePhase.Degraded);
    assertThat(ready(refused).getReason()).isEqualTo("PathsOwnedByAnother");
    assertThat(ready(refused).getMessage()).isEqualTo("Cannot use /mnt/quarry/shared/imagenet: NodeCache owner owns"
        + " /mnt/quarry/shared/imagenet; rename the image or set another spec.mountRoot or spec.cache.directory");
    assertThat(client.apps().daemonSets().inNamespace(operatorNamespace).withName("quarry-agent-latecomer").get())
        .isNull();
    assertThat(client.apps().daemonSets().inNamespace(operatorNamespace).withName("quarry-agent-owner").get())
        .as("the owner keeps its agents").isNotNull();
    client.resources(NodeCache.class).withName("latecomer").delete();
    client.resources(NodeCache.class).withName("owner").delete();
  }

  @Test
  void anOlderNodeCacheCannotTakePathsAnotherHoldsByChangingItsSpec() throws Exception {
    NodeCache elder = example("elder", "/mnt/quarry/contested");
    elder.getSpec().images().subList(1, elder.getSpec().images().size()).clear(); // imagenet
    client.resource(elder).create();
    awaitStatus("elder", s -> Long.valueOf(1).equals(s.acceptedGeneration()));
    NodeCache holder = example("holder", "/mnt/quarry/contested");
    holder.getSpec().images().remove(0); // laion-subset
    client.resource(holder).create();
    awaitStatus("holder", s -> Long.valueOf(1).equals(s.acceptedGeneration()));

    // The elder wants the image the holder mounts: the holder was accepted with it first, and keeps it.
    Conflicts.retried(() -> client.resources(NodeCache.class).withName("elder").edit(current -> {
      current.getSpec().images().add(holder.getSpec().images().get(0));
      return current;
    }));
    NodeCacheStatus refused = awaitStatus("elder", s -> s.observedGeneration() == 2);
    assertThat(refused.phase()).isEqualTo(CachePhase.Degraded);
    assertThat(ready(refused).getReason()).isEqualTo("PathsOwnedByAnother");
    assertThat(ready(refused).getMessage()).isEqualTo("Cannot use /mnt/quarry/contested/laion-subset: NodeCache"
        + " holder owns /mnt/quarry/contested/laion-subset; rename the image or set another spec.mountRoot or"
        + " spec.cache.directory");
    assertThat(refused.acceptedGeneration()).as("its agents keep the spec accepted before").isEqualTo(1);
    Thread.sleep(2000); // reconciles of both
    NodeCacheStatus kept = client.resources(NodeCache.class).withName("holder").get().getStatus();
    assertThat(kept.acceptedGeneration()).isEqualTo(1);
    assertThat(ready(kept).getReason()).isNotEqualTo("PathsOwnedByAnother");
    client.resources(NodeCache.class).withName("elder").delete();
    client.resources(NodeCache.class).withName("holder").delete();
  }

  @Test
  void aNodeCacheHoldsThePathsOfTheSpecItsAgentsUseWhileANewerOneIsRefused() throws Exception {
    NodeCache keeper = example("keeper", "/mnt/quarry/kept");
    keeper.getSpec().images().subList(1, keeper.getSpec().images().size()).clear();
    String kept = keeper.getSpec().images().get(0).name();
    client.resource(keeper).create();
    awaitStatus("keeper", s -> Long.valueOf(1).equals(s.acceptedGeneration()));
    NodeCache other = example("other", "/mnt/quarry/kept");
    other.getSpec().images().remove(0);
    client.resource(other).create();
    awaitStatus("other", s -> Long.valueOf(1).equals(s.acceptedGeneration()));

    // The keeper's edit drops its image for the other's: refused, so its agents keep mounting its image.
    Conflicts.retried(() -> client.resources(NodeCache.class).withName("keeper").edit(current -> {
      current.getSpec().images().clear();
      current.getSpec().images().add(other.getSpec().images().get(0));
      return current;
    }));
    NodeCacheStatus refused = awaitStatus("keeper", s -> s.observedGeneration() == 2);
    assertThat(ready(refused).getReason()).isEqualTo("PathsOwnedByAnother");
    assertThat(refused.acceptedPaths().images()).containsExactly(kept);

    // A newcomer wanting the image the keeper's agents still mount is refused, naming the keeper.
    NodeCache newcomer = example("newcomer", "/mnt/quarry/kept");
    newcomer.getSpec().images().subList(1, newcomer.getSpec().images().size()).clear();
    client.resource(newcomer).create();
    NodeCacheStatus status = awaitStatus("newcomer", s -> s.observedGeneration() != null);
    assertThat(status.acceptedGeneration()).isNull();
    assertThat(ready(status).getReason()).isEqualTo("PathsOwnedByAnother");
    assertThat(ready(status).getMessage()).isEqualTo("Cannot use /mnt/quarry/kept/" + kept + ": NodeCache keeper"
        + " owns /mnt/quarry/kept/" + kept + "; rename the image or set another spec.mountRoot or"
        + " spec.cache.directory");
    for (String name : List.of("newcomer", "other", "keeper")) {
      client.resources(NodeCache.class).withName(name).delete();
    }
  }

  /** The example NodeCache, with a mount root of its own: the tests share one API server. */
  private NodeCache example(String name) {
    return example(name, "/mnt/quarry/" + name);
  }

  private NodeCache example(String name, String mountRoot) {
    NodeCache cache = Manifests.example(client, "nodecache.yaml", NodeCache.class, null, name);
    cache.getMetadata().setNamespace(null);
    NodeCacheSpec spec = cache.getSpec();
    cache.setSpec(new NodeCacheSpec(spec.nodeSelector(), spec.tolerations(), mountRoot, spec.cache(),
        new ArrayList<>(spec.images()), spec.policy(), spec.store()));
    return cache;
  }

  /** Plays the DaemonSet controller; returns the DaemonSet's new resource version. */
  private String scheduled(DaemonSet daemonSet, int nodes) {
    DaemonSet current = client.resource(daemonSet).get();
    current.setStatus(new DaemonSetStatusBuilder().withDesiredNumberScheduled(nodes).withCurrentNumberScheduled(
        nodes).withNumberReady(nodes).withNumberMisscheduled(0).build());
    return client.resource(current).updateStatus().getMetadata().getResourceVersion();
  }

  /** What an agent writes: its report, then its status. */
  private void report(String cache, String node, Long generation, CachePhase phase, ImageState state, long local,
      long source) {
    NodeCacheReport report = new NodeCacheReport();
    report.setMetadata(new ObjectMetaBuilder().withName(NodeCacheReport.nameOf(cache, node))
        .withLabels(Map.of(NodeCacheReport.NODE_CACHE_LABEL, cache, NodeCacheReport.NODE_LABEL, node)).build());
    report.setSpec(new NodeCacheReportSpec(cache, node));
    NodeCacheReport existing = client.resource(report).get();
    NodeCacheReport stored = existing != null ? existing : client.resource(report).create();
    String message = state == ImageState.Failed ? "Cannot open /mnt/nfs/images/imagenet-2012.sqfs: no such file (is"
        + " the NFS share mounted on this node?)" : null;
    stored.setStatus(new NodeCacheReportStatus(generation, phase, "2026-11-22T01:00:00Z",
        state == ImageState.Failed ? 0 : 2, state == ImageState.Cached ? 1 : 0, "1Gi", 1L << 30, 10L << 30, local,
        source, null, List.of(new ImageReport("imagenet", state, 1L << 30, source, local, null, "pinned", message)),
        List.of(), List.of()));
    client.resource(stored).updateStatus();
  }

  private Pod agentPod(String cache, String node) {
    Pod pod = client.resource(new PodBuilder().withNewMetadata().withName("agent-" + cache + "-" + node)
        .withNamespace(operatorNamespace).withLabels(AgentDaemonSet.selector(client.resources(NodeCache.class)
            .withName(cache).get())).endMetadata()
        .withNewSpec().withNodeName(node).addNewContainer().withName("agent").withImage("quarry-agent:test")
        .endContainer().endSpec().build()).create();
    pod.setStatus(new PodStatusBuilder().withPhase("Running").build());
    return client.resource(pod).updateStatus();
  }

  private DaemonSet awaitDaemonSet(String name) {
    return await().atMost(WAIT).until(() -> client.apps().daemonSets().inNamespace(operatorNamespace)
        .withName(name).get(), Objects::nonNull);
  }

  private NodeCacheStatus awaitStatus(String name, Predicate<NodeCacheStatus> condition) {
    return await().atMost(WAIT).until(() -> client.resources(NodeCache.class).withName(name).get().getStatus(),
        status -> status != null && condition.test(status));
  }

  private static Condition ready(NodeCacheStatus status) {
    return status.conditions().stream().filter(c -> c.getType().equals("Ready")).findFirst().orElseThrow();
  }
}
