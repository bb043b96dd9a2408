package dev.quarry.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.quarry.agent.metrics.AgentServer;
import dev.quarry.agent.run.NodeAgent;
import dev.quarry.api.nodecache.CacheImage;
import dev.quarry.api.nodecache.CachePhase;
import dev.quarry.api.nodecache.CachePolicy;
import dev.quarry.api.nodecache.CacheStorage;
import dev.quarry.api.nodecache.ImageState;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCacheReport;
import dev.quarry.api.nodecache.NodeCacheSpec;
import dev.quarry.core.cache.agent.CacheAgent;
import dev.quarry.core.cache.host.MountTable;
import dev.quarry.core.cache.image.ImageBuilder;
import dev.quarry.testkit.KubeApiExtension;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
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

  NodeAgentIT(KubernetesClient client) {
    this.client = client;
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null) {
      agent.close();
      loop.join(20_000);
    }
    CacheAgent.removeEverything(temp.resolve("mnt"), temp.resolve("cache"));
  }

  @Test
  void mountsCopiesWithinTheClusterSlotLimitReportsAndCleansUpOnDeletion() throws Exception {
    Path content = Files.createDirectories(temp.resolve("content"));
    Files.writeString(content.resolve("labels.txt"), "cat\ndog\n".repeat(100_000));
    ImageBuilder.BuiltImage image = ImageBuilder.build(content, temp.resolve("pets.sqfs"),
        ImageBuilder.Compression.GZIP, 2);
    NodeCache nodeCache = new NodeCache();
    nodeCache.setMetadata(new ObjectMetaBuilder().withName("pets").withFinalizers("quarry.dev/test-holds").build());
    nodeCache.setSpec(new NodeCacheSpec(null, null, temp.resolve("mnt").toString(),
        new CacheStorage(temp.resolve("cache").toString(), "1Gi"),
        List.of(new CacheImage("pets", image.image().toString(), "sha256:" + image.sha256(), true, 0)),
        new CachePolicy("10m", "1s", 10, null, 1), null));
    client.resource(nodeCache).create();
    // Another node holds the only copy slot.
    Lease held = new Lease();
    held.setMetadata(new ObjectMetaBuilder().withName("quarry-copy-pets-0").withNamespace("default").build());
    held.setSpec(new LeaseSpecBuilder().withHolderIdentity("node-b").withLeaseDurationSeconds(600)
        .withRenewTime(ZonedDateTime.now()).build());
    client.resource(held).create();

    agent = new NodeAgent(client, "pets", "node-a", "default", Clock.systemUTC());
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
            + Files.size(temp.resolve("cache/pets.json"))));
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
}
