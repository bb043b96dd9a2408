package dev.quarry.operator.scale;

import dev.quarry.api.nodecache.CachePhase;
import dev.quarry.api.nodecache.ImageReport;
import dev.quarry.api.nodecache.ImageState;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCacheReport;
import dev.quarry.api.nodecache.NodeCacheReportSpec;
import dev.quarry.api.nodecache.NodeCacheReportStatus;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Node agents as the API server sees them: each owns the report of its node and replaces its status once per policy
 * interval, with read counters that moved since (the agent writes whenever a person would see a change, and traffic
 * changes them every pass). One node can be made to fail an image, as a broken NFS mount would.
 */
final class SimulatedAgents implements AutoCloseable {
  private final KubernetesClient client;
  private final NodeCache cache;
  private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(8);
  private final Map<String, NodeCacheReport> reports = new ConcurrentHashMap<>();
  private final Map<String, Boolean> failing = new ConcurrentHashMap<>();
  private final AtomicLong writes = new AtomicLong();
  private final AtomicLong conflicts = new AtomicLong();

  SimulatedAgents(KubernetesClient client, NodeCache cache) {
    this.client = client;
    this.cache = cache;
  }

  static String node(int index) {
    return "node-%04d".formatted(index);
  }

  /** Creates each node's report, Ready, then writes it every {@code interval} from a random start within it. */
  void start(int nodes, Duration interval) {
    for (int index = 0; index < nodes; index++) {
      String node = node(index);
      reports.put(node, client.resources(NodeCacheReport.class).resource(newReport(node)).create());
      write(node);
    }
    for (int index = 0; index < nodes; index++) {
      String node = node(index);
      scheduler.scheduleAtFixedRate(() -> write(node),
          ThreadLocalRandom.current().nextLong(interval.toMillis()), interval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** From now on {@code node}'s agent reports an image it cannot mount; written at once, as the agent would. */
  void fail(String node) {
    failing.put(node, true);
    write(node);
  }

  long writes() {
    return writes.get();
  }

  long conflicts() {
    return conflicts.get();
  }

  private synchronized void write(String node) {
    NodeCacheReport current = reports.get(node);
    NodeCacheReport update = new NodeCacheReport();
    update.setMetadata(new ObjectMetaBuilder().withName(current.getMetadata().getName())
        .withResourceVersion(current.getMetadata().getResourceVersion()).build());
    update.setSpec(current.getSpec());
    update.setStatus(status(node));
    try {
      reports.put(node, client.resources(NodeCacheReport.class).resource(update).updateStatus());
      writes.incrementAndGet();
    } catch (KubernetesClientException e) {
      conflicts.incrementAndGet();
      reports.put(node, client.resources(NodeCacheReport.class).withName(current.getMetadata().getName()).get());
    }
  }

  private NodeCacheReportStatus status(String node) {
    boolean failed = failing.containsKey(node);
    long local = ThreadLocalRandom.current().nextLong(1L << 20, 1L << 30);
    long source = ThreadLocalRandom.current().nextLong(1L << 20, 1L << 28);
    ImageReport imagenet = new ImageReport("imagenet", failed ? ImageState.Failed : ImageState.Cached, 1L << 30,
        source, local, null, "pinned", failed ? "Cannot open /mnt/nfs/images/imagenet-2012.sqfs: no such file" : null);
    ImageReport laion = new ImageReport("laion-subset", ImageState.Source, 1L << 30, source, 0L, null,
        "not hot enough", null);
    return new NodeCacheReportStatus(cache.getMetadata().getGeneration(),
        failed ? CachePhase.Degraded : CachePhase.Ready, Instant.now().toString(), failed ? 1 : 2, failed ? 0 : 1,
        "1Gi", 1L << 30, 10L << 30, local, 2 * source, null, List.of(imagenet, laion), List.of(), List.of());
  }

  private NodeCacheReport newReport(String node) {
    NodeCacheReport report = new NodeCacheReport();
    report.setMetadata(new ObjectMetaBuilder().withName(NodeCacheReport.nameOf(cache.getMetadata().getName(), node))
        .withLabels(Map.of(NodeCacheReport.NODE_CACHE_LABEL, cache.getMetadata().getName(),
            NodeCacheReport.NODE_LABEL, node))
        .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion(cache.getApiVersion())
            .withKind(cache.getKind()).withName(cache.getMetadata().getName()).withUid(cache.getMetadata().getUid())
            .build())
        .build());
    report.setSpec(new NodeCacheReportSpec(cache.getMetadata().getName(), node));
    return report;
  }

  @Override
  public void close() throws InterruptedException {
    scheduler.shutdownNow();
    scheduler.awaitTermination(30, TimeUnit.SECONDS);
  }
}
