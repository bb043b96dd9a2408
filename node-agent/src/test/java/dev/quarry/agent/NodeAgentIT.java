package dev.quarry.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.quarry.agent.metrics.AgentServer;
import dev.quarry.agent.run.NodeAgent;
import dev.quarry.agent.run.NodeCacheSettings;
import dev.quarry.api.nodecache.CacheImage;
import dev.quarry.api.nodecache.CachePhase;
import dev.quarry.api.nodecache.CachePolicy;
import dev.quarry.api.nodecache.CacheStorage;
import dev.quarry.api.nodecache.ImageState;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCacheReport;
import dev.quarry.api.nodecache.NodeCacheSpec;
import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.common.SecretKeys;
import dev.quarry.api.nodecache.HostPathRoots;
import dev.quarry.api.nodecache.NodeCacheSecrets;
import dev.quarry.core.cache.agent.CacheAgent;
import dev.quarry.core.cache.agent.OwnedPaths;
import dev.quarry.core.cache.host.MountTable;
import dev.quarry.core.cache.image.ImageBuilder;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.testkit.KubeApiExtension;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The agent against a real API server, with real loop mounts on this machine. */
@ExtendWith(KubeApiExtension.class)
class NodeAgentIT {
  private final KubernetesClient client;
  @TempDir Path temp;
  private NodeAgent agent;
  private Thread loop;
  private final List<NodeAgent> others = new ArrayList<>();
  private final List<Thread> otherLoops = new ArrayList<>();

  NodeAgentIT(KubernetesClient client) {
    this.client = client;
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null) {
      agent.close();
      loop.join(20_000);
    }
    for (int i = 0; i < others.size(); i++) {
      others.get(i).close();
      otherLoops.get(i).join(20_000);
    }
    for (String owner : OwnedPaths.owners(temp.resolve("cache"))) {
      CacheAgent.removeOwned(NodeCacheSettings.nodeRoots(roots()), temp.resolve("cache"), owner);
    }
  }

  @Test
  void mountsCopiesWithinTheClusterSlotLimitReportsAndCleansUpOnDeletion() throws Exception {
    Path content = Files.createDirectories(temp.resolve("content"));
    Files.writeString(content.resolve("labels.txt"), "cat\ndog\n".repeat(100_000));
    ImageBuilder.BuiltImage image = ImageBuilder.build(content, images().resolve("pets.sqfs"),
        ImageBuilder.Compression.GZIP, 2);
    NodeCache nodeCache = new NodeCache();
    nodeCache.setMetadata(new ObjectMetaBuilder().withName("pets").withFinalizers("quarry.dev/test-holds").build());
    nodeCache.setSpec(new NodeCacheSpec(null, null, temp.resolve("mnt").toString(),
        new CacheStorage(temp.resolve("cache").toString(), "1Gi"),
        List.of(new CacheImage("pets", image.image().toString(), "sha256:" + image.sha256(), true, 0)),
        new CachePolicy("10m", "1s", 10, null, 1), null));
    client.resource(nodeCache).create();
    OperatorStandIn.accept(client, "pets");
    // Another node holds the only copy slot.
    Lease held = new Lease();
    held.setMetadata(new ObjectMetaBuilder().withName("quarry-copy-pets-0").withNamespace("default").build());
    held.setSpec(new LeaseSpecBuilder().withHolderIdentity("node-b").withLeaseDurationSeconds(600)
        .withRenewTime(ZonedDateTime.now()).build());
    client.resource(held).create();

    agent = new NodeAgent(client, "pets", "node-a", "default", roots(), EndpointAllowlist.ANY,
        NodeCacheSecrets.NONE, ObjectStores::new, Clock.systemUTC());
    loop = Thread.ofPlatform().start(() -> {
      try {
        agent.run();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    var report = client.resources(NodeCacheReport.class).withName("pets.node-a");
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      NodeCacheReport r = report.get();
      assertThat(r).isNotNull();
      // The agent creates the report, then writes its status: in between, it has none.
      assertThat(r.getStatus()).isNotNull();
      assertThat(r.getStatus().phase()).isEqualTo(CachePhase.Ready);
      assertThat(r.getStatus().images().get(0).state()).isEqualTo(ImageState.Source);
      assertThat(r.getStatus().images().get(0).message())
          .isEqualTo("waiting for a copy slot: the cluster-wide limit of concurrent copies is reached");
    });
    NodeCacheReport waiting = report.get();
    assertThat(waiting.getMetadata().getLabels()).containsEntry(NodeCacheReport.NODE_CACHE_LABEL, "pets")
        .containsEntry(NodeCacheReport.NODE_LABEL, "node-a");
    assertThat(waiting.getMetadata().getOwnerReferences()).singleElement()
        .satisfies(owner -> assertThat(owner.getKind()).isEqualTo("NodeCache"));
    assertThat(waiting.getStatus().conditions()).singleElement()
        .satisfies(c -> assertThat(c.getMessage()).isEqualTo("All 1 images are mounted; 0 served from local copies"));
    assertThat(agent.ready()).isTrue();

    client.leases().inNamespace("default").withName("quarry-copy-pets-0").delete();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      NodeCacheReport r = report.get();
      assertThat(r.getStatus().images().get(0).state()).isEqualTo(ImageState.Cached);
      assertThat(r.getStatus().cached()).isEqualTo(1);
      assertThat(r.getStatus().decisions()).extracting(d -> d.action()).containsSubsequence("Copied", "Cache");
    });
    assertThat(Files.readString(temp.resolve("mnt/pets/labels.txt"))).startsWith("cat\ndog\n");
    String metrics;
    try (AgentServer server = new AgentServer(0, agent.metrics()::scrape, agent::live, agent::ready)) {
      HttpClient http = HttpClient.newHttpClient();
      URI base = URI.create("http://127.0.0.1:" + server.port());
      assertThat(http.send(HttpRequest.newBuilder(base.resolve("/readyz")).build(),
          HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
      assertThat(http.send(HttpRequest.newBuilder(base.resolve("/healthz")).build(),
          HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
      metrics = http.send(HttpRequest.newBuilder(base.resolve("/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
    }
    assertThat(metrics).contains("quarry_cache_copies_total{nodecache=\"pets\"} 1.0")
        .contains("quarry_cache_read_bytes_total{image=\"pets\",layer=\"local\",nodecache=\"pets\"}")
        .contains("quarry_cache_used_bytes{nodecache=\"pets\"} " + (double) (image.sizeBytes()
            + Files.size(temp.resolve("cache/pets/copies/pets.json"))));
    assertThat(client.leases().inNamespace("default").withName("quarry-copy-pets-0").get())
        .as("the slot is released after the copy").isNull();

    client.resources(NodeCache.class).withName("pets").delete();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(report.get()).isNull());
    assertThat(MountTable.read().mountPointsUnder(temp.resolve("mnt"))).isEmpty();
    try (var files = Files.list(temp.resolve("cache"))) {
      assertThat(files.toList()).isEmpty();
    }
    client.resources(NodeCache.class).withName("pets").edit(nc -> {
      nc.getMetadata().setFinalizers(List.of());
      return nc;
    });
  }

  @Test
  void onShutdownTheAgentKeepsItsMountsWhileItsNodeIsSelectedAndRemovesThemWhenItIsNot() throws Exception {
    Path source = image("gpu", "weights\n");
    Path point = temp.resolve("mnt/gpu");
    Node node = new NodeBuilder().withNewMetadata().withName("node-gpu").withLabels(Map.of("gpu", "yes"))
        .endMetadata().build();
    client.resource(node).create();
    try {
      NodeCache nodeCache = new NodeCache();
      nodeCache.setMetadata(new ObjectMetaBuilder().withName("gpu").withFinalizers("quarry.dev/test-holds").build());
      nodeCache.setSpec(new NodeCacheSpec(Map.of("gpu", "yes"), List.of(new TolerationBuilder().withKey("gpu")
          .withOperator("Exists").withEffect("NoSchedule").build()), temp.resolve("mnt").toString(),
          new CacheStorage(temp.resolve("cache").toString(), "1Gi"),
          List.of(new CacheImage("gpu", source.toString(), null, false, 0)), new CachePolicy("10m", "1s", 10, null, 1),
          null));
      client.resource(nodeCache).create();
      OperatorStandIn.accept(client, "gpu");

      // A rolling update or a drain: the node is still selected (its tolerated taint, and the drain's, count not).
      client.nodes().withName("node-gpu").edit(n -> new NodeBuilder(n).editOrNewSpec().withUnschedulable(true)
          .addNewTaint().withKey("gpu").withValue("a100").withEffect("NoSchedule").endTaint()
          .addNewTaint().withKey("node.kubernetes.io/unschedulable").withEffect("NoSchedule").endTaint()
          .endSpec().build());
      NodeAgent first = startedOn("gpu", "node-gpu");
      await().atMost(Duration.ofSeconds(30)).until(() -> !MountTable.read().stackAt(point).isEmpty());
      first.close();
      assertThat(MountTable.read().stackAt(point)).as("kept for the next agent").hasSize(1);

      // A taint the NodeCache does not tolerate takes the node out: the next agent to stop removes what it made.
      client.nodes().withName("node-gpu").edit(n -> new NodeBuilder(n).editSpec().addNewTaint().withKey("maintenance")
          .withEffect("NoExecute").endTaint().endSpec().build());
      startedOn("gpu", "node-gpu").close();
      assertThat(MountTable.read().stackAt(point)).isEmpty();
      assertThat(temp.resolve("cache/gpu")).doesNotExist();
      assertThat(client.resources(NodeCacheReport.class).withName(NodeCacheReport.nameOf("gpu", "node-gpu")).get())
          .as("nothing left there for the operator to wait for").isNull();

      // Its labels no longer match the nodeSelector: the same.
      client.nodes().withName("node-gpu").edit(n -> new NodeBuilder(n).editSpec().withTaints().endSpec()
          .editMetadata().withLabels(Map.of("gpu", "yes")).endMetadata().build());
      NodeAgent third = startedOn("gpu", "node-gpu");
      await().atMost(Duration.ofSeconds(30)).until(() -> !MountTable.read().stackAt(point).isEmpty());
      client.nodes().withName("node-gpu").edit(n -> new NodeBuilder(n).editMetadata()
          .withLabels(Map.of("gpu", "no")).endMetadata().build());
      third.close();
      assertThat(MountTable.read().stackAt(point)).isEmpty();
      assertThat(temp.resolve("cache/gpu")).doesNotExist();
      release("gpu");
    } finally {
      client.nodes().withName("node-gpu").delete();
    }
  }

  /** An agent of {@code name} on {@code node}, started, that has made its first pass. */
  private NodeAgent startedOn(String name, String node) {
    NodeAgent started = new NodeAgent(client, name, node, "default", roots(), EndpointAllowlist.ANY,
        new NodeCacheSecrets(List.of("cache-keys")), ObjectStores::new, Clock.systemUTC());
    others.add(started);
    otherLoops.add(Thread.ofPlatform().start(() -> {
      try {
        started.run();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }));
    await().atMost(Duration.ofSeconds(30)).until(started::ready);
    return started;
  }

  /** The roots the admin allows, as the chart would set them: this test's folders, apart. */
  private HostPathRoots roots() {
    return new HostPathRoots(List.of(temp.resolve("mnt").toString()), List.of(temp.resolve("cache").toString()),
        List.of(temp.resolve("images").toString()));
  }

  /** The source root, where the shared storage would be. */
  private Path images() throws IOException {
    return Files.createDirectories(temp.resolve("images"));
  }

  /** A NodeCache the operator accepted. */
  private NodeCache create(String name, Path mountRoot, String image, Path source) {
    createPending(name, mountRoot, image, source);
    return OperatorStandIn.accept(client, name);
  }

  /** A NodeCache the operator has not accepted yet. */
  private NodeCache createPending(String name, Path mountRoot, String image, Path source) {
    NodeCache nodeCache = new NodeCache();
    nodeCache.setMetadata(new ObjectMetaBuilder().withName(name).withFinalizers("quarry.dev/test-holds").build());
    nodeCache.setSpec(new NodeCacheSpec(null, null, mountRoot.toString(),
        new CacheStorage(temp.resolve("cache").toString(), "1Gi"),
        new ArrayList<>(List.of(new CacheImage(image, source.toString(), null, false, 0))),
        new CachePolicy("10m", "1s", 10, null, 1), null));
    return client.resource(nodeCache).create();
  }

  private void start(String name) {
    NodeAgent started = new NodeAgent(client, name, "node-a", "default", roots(), EndpointAllowlist.ANY,
        new NodeCacheSecrets(List.of("cache-keys")), ObjectStores::new, Clock.systemUTC());
    others.add(started);
    otherLoops.add(Thread.ofPlatform().start(() -> {
      try {
        started.run();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }));
  }

  private void release(String name) {
    client.resources(NodeCache.class).withName(name).edit(nc -> {
      nc.getMetadata().setFinalizers(List.of());
      return nc;
    });
  }

  private Path image(String name, String text) throws Exception {
    Path content = Files.createDirectories(temp.resolve(name + "-content"));
    Files.writeString(content.resolve("labels.txt"), text);
    return ImageBuilder.build(content, images().resolve(name + ".sqfs"), ImageBuilder.Compression.GZIP, 2).image();
  }

  @Test
  void twoNodeCachesOnOneNodeKeepEachOthersImagesAndDeletingOneLeavesTheOtherAndForeignFiles() throws Exception {
    Path mnt = temp.resolve("mnt");
    create("birds", mnt, "birds", image("birds", "owl\n"));
    create("fish", mnt, "fish", image("fish", "cod\n"));
    Path foreign = Files.writeString(Files.createDirectories(temp.resolve("cache")).resolve("notes.json"), "{}");
    start("birds");
    start("fish");
    for (String name : List.of("birds", "fish")) {
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        NodeCacheReport r = client.resources(NodeCacheReport.class).withName(name + ".node-a").get();
        assertThat(r).isNotNull();
        assertThat(r.getStatus()).isNotNull();
        assertThat(r.getStatus().phase()).isEqualTo(CachePhase.Ready);
      });
    }
    Thread.sleep(3000); // several passes of each agent
    assertThat(Files.readString(mnt.resolve("birds/labels.txt"))).isEqualTo("owl\n");
    assertThat(Files.readString(mnt.resolve("fish/labels.txt"))).isEqualTo("cod\n");

    client.resources(NodeCache.class).withName("fish").delete();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(client.resources(NodeCacheReport.class).withName("fish.node-a").get()).isNull());
    assertThat(MountTable.read().stackAt(mnt.resolve("fish"))).isEmpty();
    assertThat(temp.resolve("cache/fish")).doesNotExist();
    Thread.sleep(2000);
    assertThat(Files.readString(mnt.resolve("birds/labels.txt"))).isEqualTo("owl\n");
    assertThat(foreign).exists();
    release("fish");
    client.resources(NodeCache.class).withName("birds").delete();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(client.resources(NodeCacheReport.class).withName("birds.node-a").get()).isNull());
    assertThat(MountTable.read().mountPointsUnder(mnt)).isEmpty();
    assertThat(foreign).exists();
    release("birds");
  }

  @Test
  void aNodeCacheWithAMountRootOutsideTheAdminRootsIsNotActedOn() throws Exception {
    Path outside = temp.resolve("elsewhere");
    create("escape", outside, "pets", image("pets", "cat\n"));
    start("escape");
    Thread.sleep(3000); // several passes
    assertThat(outside).doesNotExist();
    assertThat(MountTable.read().mountPointsUnder(outside)).isEmpty();
    assertThat(OwnedPaths.owners(temp.resolve("cache"))).isEmpty();
    assertThat(client.resources(NodeCacheReport.class).withName("escape.node-a").get()).isNull();
    client.resources(NodeCache.class).withName("escape").delete();
    release("escape");
  }

  @Test
  void onlyASpecTheOperatorAcceptedIsActedOnAndTheLastOneIsKeptWhileANewerOneIsNot() throws Exception {
    Path mnt = temp.resolve("mnt");
    createPending("kept", mnt, "owl", image("owl", "owl\n"));
    start("kept");
    Thread.sleep(3000); // several passes
    assertThat(MountTable.read().stackAt(mnt.resolve("owl"))).as("never accepted: nothing done").isEmpty();
    assertThat(client.resources(NodeCacheReport.class).withName("kept.node-a").get()).isNull();

    OperatorStandIn.accept(client, "kept");
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(mnt.resolve("owl/labels.txt")).hasContent("owl\n"));

    // A newer spec, pending (or refused): the agent keeps the accepted one.
    Path cod = image("cod", "cod\n");
    client.resources(NodeCache.class).withName("kept").edit(nc -> {
      nc.getSpec().images().add(new CacheImage("cod", cod.toString(), null, false, 0));
      return nc;
    });
    Thread.sleep(3000);
    assertThat(MountTable.read().stackAt(mnt.resolve("cod"))).isEmpty();
    assertThat(mnt.resolve("owl/labels.txt")).hasContent("owl\n");
    assertThat(client.resources(NodeCacheReport.class).withName("kept.node-a").get().getStatus()
        .observedGeneration()).isEqualTo(1);

    OperatorStandIn.accept(client, "kept");
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(mnt.resolve("cod/labels.txt")).hasContent("cod\n"));
    client.resources(NodeCache.class).withName("kept").delete();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(client.resources(NodeCacheReport.class).withName("kept.node-a").get()).isNull());
    assertThat(MountTable.read().mountPointsUnder(mnt)).isEmpty();
    release("kept");
  }

  /** The Secret's keys reach the agent from its pod; a spec naming a Secret the admin did not list is not acted on. */
  @Test
  void aNodeCacheNamingASecretTheAdminDidNotListIsNotActedOn() throws Exception {
    Path mnt = temp.resolve("mnt");
    NodeCache nodeCache = new NodeCache();
    nodeCache.setMetadata(new ObjectMetaBuilder().withName("borrowed").withFinalizers("quarry.dev/test-holds").build());
    nodeCache.setSpec(new NodeCacheSpec(null, null, mnt.toString(),
        new CacheStorage(temp.resolve("cache").toString(), "1Gi"),
        List.of(new CacheImage("pets", image("pets", "cat\n").toString(), null, false, 0)),
        new CachePolicy("10m", "1s", 10, null, 1),
        new ObjectStore(null, null, null, new SecretKeys("quarry-operator-token", null, null))));
    client.resource(nodeCache).create();
    OperatorStandIn.accept(client, "borrowed"); // as if the operator had missed it: the agent is the last line
    start("borrowed");
    Thread.sleep(3000); // several passes
    assertThat(MountTable.read().mountPointsUnder(mnt)).isEmpty();
    assertThat(OwnedPaths.owners(temp.resolve("cache"))).isEmpty();
    assertThat(client.resources(NodeCacheReport.class).withName("borrowed.node-a").get()).isNull();
    client.resources(NodeCache.class).withName("borrowed").delete();
    release("borrowed");
  }
}
