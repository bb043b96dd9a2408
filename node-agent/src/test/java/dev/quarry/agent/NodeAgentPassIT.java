package dev.quarry.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.quarry.agent.run.NodeAgent;
import dev.quarry.agent.run.NodeCacheSettings;
import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.nodecache.CacheImage;
import dev.quarry.api.nodecache.CachePolicy;
import dev.quarry.api.nodecache.CacheStorage;
import dev.quarry.api.nodecache.HostPathRoots;
import dev.quarry.api.nodecache.NodeCacheSecrets;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCacheSpec;
import dev.quarry.core.cache.agent.CacheAgent;
import dev.quarry.core.cache.image.ImageBuilder;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.testkit.KubeApiExtension;
import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** One pass of the agent against a real API server and MinIO: it uses the spec it checked, from start to end. */
@ExtendWith({KubeApiExtension.class, MinioExtension.class})
class NodeAgentPassIT {
  private static final String CHANGED_ENDPOINT = "http://127.0.0.2:9";
  private final KubernetesClient client;
  private final MinioServer minio;
  @TempDir Path temp;

  NodeAgentPassIT(KubernetesClient client, MinioServer minio) {
    this.client = client;
    this.minio = minio;
  }

  @Test
  void anEndpointChangedDuringAPassIsNeverReachedByThatPassAndRefusedByTheNext() throws Exception {
    Path content = Files.createDirectories(temp.resolve("content"));
    Files.writeString(content.resolve("weights.bin"), "0123456789".repeat(100_000));
    ImageBuilder.BuiltImage image = ImageBuilder.build(content, temp.resolve("weights.sqfs"),
        ImageBuilder.Compression.GZIP, 2);
    String bucket = minio.createBucket("models");
    S3Settings s3 = S3Settings.defaults().withEndpoint(minio.endpoint())
        .withCredentials(minio.accessKey(), minio.secretKey());
    try (ObjectStores upload = new ObjectStores(s3)) {
      upload.locate("s3://" + bucket + "/weights.sqfs").store().put("weights.sqfs", Files.readAllBytes(image.image()));
    }
    String allowed = minio.endpoint().toString();
    NodeCache nodeCache = new NodeCache();
    nodeCache.setMetadata(new ObjectMetaBuilder().withName("models").withFinalizers("quarry.dev/test-holds").build());
    nodeCache.setSpec(new NodeCacheSpec(null, null, temp.resolve("mnt").toString(),
        new CacheStorage(temp.resolve("cache").toString(), "1Gi"),
        List.of(new CacheImage("weights", "s3://" + bucket + "/weights.sqfs", "sha256:" + image.sha256(), true, 0)),
        new CachePolicy("10m", "1s", 10, null, 1), new ObjectStore(allowed, null, null, null)));
    client.resource(nodeCache).create();
    OperatorStandIn.accept(client, "models");

    // The stores each pass opens: the first pass, once it opened its store (to look at the image), sees the spec
    // change to an endpoint this agent does not allow, accepted by an operator that allows it (another allowlist, in
    // the middle of a chart upgrade). The copy the same pass then starts must still read from the endpoint it checked.
    List<URI> opened = new CopyOnWriteArrayList<>();
    HostPathRoots roots = new HostPathRoots(List.of(temp.resolve("mnt").toString()),
        List.of(temp.resolve("cache").toString()), List.of(temp.resolve("images").toString()));
    NodeAgent agent = new NodeAgent(client, "models", "node-a", "default", roots,
        new EndpointAllowlist(List.of(allowed)), NodeCacheSecrets.NONE, settings -> {
          opened.add(settings.endpoint());
          if (opened.size() == 1) {
            client.resources(NodeCache.class).withName("models").edit(nc -> {
              nc.setSpec(new NodeCacheSpec(null, null, nc.getSpec().mountRoot(), nc.getSpec().cache(),
                  nc.getSpec().images(), nc.getSpec().policy(), new ObjectStore(CHANGED_ENDPOINT, null, null, null)));
              return nc;
            });
            OperatorStandIn.accept(client, "models");
            sleepQuietly(); // the agent's informer delivers the change in milliseconds
          }
          return new ObjectStores(s3.withEndpoint(settings.endpoint()));
        }, Clock.systemUTC());
    Thread loop = Thread.ofPlatform().start(() -> {
      try {
        agent.run();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    try {
      // The copy the first pass started, from the endpoint it checked, finishes and is verified.
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(temp.resolve("cache/models/copies/weights.sqfs")).exists());
      Thread.sleep(3000); // several passes on the changed spec, each refusing it
      assertThat(opened).as("stores opened").containsExactly(minio.endpoint());
    } finally {
      agent.close();
      loop.join(20_000);
      CacheAgent.removeOwned(NodeCacheSettings.nodeRoots(roots), temp.resolve("cache"), "models");
      client.resources(NodeCache.class).withName("models").delete();
      client.resources(NodeCache.class).withName("models").edit(nc -> {
        nc.getMetadata().setFinalizers(List.of());
        return nc;
      });
    }
  }

  private static void sleepQuietly() {
    try {
      Thread.sleep(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
