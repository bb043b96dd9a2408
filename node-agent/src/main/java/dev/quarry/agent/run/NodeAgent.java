package dev.quarry.agent.run;

import dev.quarry.agent.metrics.AgentMetrics;
import dev.quarry.agent.report.ReportWriter;
import dev.quarry.agent.slots.LeaseCopySlots;
import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.nodecache.HostPathRoots;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCachePaths;
import dev.quarry.api.nodecache.NodeCacheSecrets;
import dev.quarry.core.cache.agent.AgentSettings;
import dev.quarry.core.cache.agent.CacheAgent;
import dev.quarry.core.cache.agent.NodeReport;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's agent for one NodeCache: watches the NodeCache, runs the cache engine's pass every interval (or at once
 * when the spec changes or a copy finishes), and publishes the result as this node's report and as metrics. When
 * the NodeCache is being deleted it removes every mount and copy it made, then its report, which lets the operator
 * finish the deletion; when it stops on a node the NodeCache no longer selects, it removes them too. It acts only on a spec the operator accepted ({@link NodeCache#specAccepted}): while a newer
 * spec is pending or refused it keeps the last accepted one, and it does nothing for a NodeCache never accepted. A
 * spec with a host path outside the admin's roots or a store endpoint the admin does not allow is not acted on
 * either, nor one naming a Secret the admin did not list for NodeCaches (the operator says why in the NodeCache's
 * status); the agent is the last line. Each pass uses one snapshot of the spec throughout, the one it checked.
 */
public final class NodeAgent implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NodeAgent.class);
  private static final Duration WAIT_FOR_NODE_CACHE = Duration.ofSeconds(5);

  private final KubernetesClient client;
  private final String nodeCacheName;
  private final String node;
  private final HostPathRoots roots;
  private final EndpointAllowlist endpoints;
  private final NodeCacheSecrets secrets;
  private final Clock clock;
  private final Function<S3Settings, ObjectStores> openStores;
  private final Map<S3Settings, ObjectStores> stores = new ConcurrentHashMap<>();
  private final CacheAgent engine;
  private final LeaseCopySlots slots;
  private final ReportWriter reports;
  private final AgentMetrics metrics;
  private final SharedIndexInformer<NodeCache> informer;
  private final WatchedNodeCache watched = new WatchedNodeCache();
  /** The spec the running pass checked and uses throughout, image sources included. */
  private volatile NodeCache passing;
  private volatile Instant lastPass;
  private volatile boolean ready;
  private volatile boolean stopped;
  private volatile boolean cleanedUp;

  /** {@code openStores} opens the object stores of a NodeCache's {@code spec.store} ({@code ObjectStores::new}). */
  public NodeAgent(KubernetesClient client, String nodeCacheName, String node, String namespace, HostPathRoots roots,
      EndpointAllowlist endpoints, NodeCacheSecrets secrets,
      Function<S3Settings, ObjectStores> openStores, Clock clock) {
    this.client = client;
    this.nodeCacheName = nodeCacheName;
    this.node = node;
    this.roots = roots;
    this.endpoints = endpoints;
    this.openStores = openStores;
    this.secrets = secrets;
    this.clock = clock;
    NodeCache initial = client.resources(NodeCache.class).withName(nodeCacheName).get();
    if (initial != null) {
      watched.seen(initial);
    }
    this.slots = new LeaseCopySlots(client, namespace, nodeCacheName, node,
        () -> watched.accepted() == null ? 1 : NodeCacheSettings.maxConcurrentCopies(watched.accepted()), clock);
    this.engine = new CacheAgent(this::locate, slots, clock, Duration.ofMinutes(5));
    this.reports = new ReportWriter(client, node);
    this.metrics = new AgentMetrics(engine, nodeCacheName);
    this.lastPass = clock.instant();
    this.informer = client.resources(NodeCache.class).withName(nodeCacheName).inform(new ResourceEventHandler<>() {
      @Override
      public void onAdd(NodeCache nodeCache) {
        changed(nodeCache);
      }

      @Override
      public void onUpdate(NodeCache before, NodeCache after) {
        changed(after);
      }

      @Override
      public void onDelete(NodeCache nodeCache, boolean unknownFinalState) {
        watched.deleted();
        engine.wake();
      }
    });
  }

  private void changed(NodeCache nodeCache) {
    watched.seen(nodeCache);
    engine.wake();
  }

  /**
   * An image source against the object store of the spec the running pass checked: a changed endpoint takes effect
   * at the pass that checks it, with clients of its own (the old ones stay open for a copy still reading through
   * them).
   */
  private Location locate(String url) {
    return stores.computeIfAbsent(NodeCacheSettings.s3(passing), openStores).locate(url);
  }

  /** Runs passes until {@link #close} (SIGTERM). */
  public void run() throws InterruptedException {
    while (!stopped) {
      NodeCache now = watched.live();
      NodeCache spec = watched.accepted();
      Duration wait = WAIT_FOR_NODE_CACHE;
      if (now == null) {
        log.info("NodeCache {} not found; waiting", nodeCacheName);
      } else if (now.getMetadata().getDeletionTimestamp() != null) {
        cleanUp(now);
      } else if (spec == null) {
        log.info("NodeCache {} has no spec the operator accepted yet (kubectl get nc {}); waiting", nodeCacheName,
            nodeCacheName);
        lastPass = clock.instant();
      } else {
        wait = NodeCacheSettings.interval(spec);
        pass(spec);
      }
      engine.awaitWork(wait);
    }
  }

  /** Why the agent must not act on {@code nodeCache}'s spec, or empty when it may. */
  private List<String> refusals(NodeCache nodeCache) {
    List<String> refusals = new ArrayList<>(roots.refusals(nodeCache.getSpec()));
    endpoints.refusal(nodeCache.getSpec().store()).ifPresent(refusals::add);
    secrets.refusal(nodeCache.getSpec()).ifPresent(refusals::add);
    return refusals;
  }

  private void pass(NodeCache nodeCache) {
    passing = nodeCache;
    List<String> refusals = refusals(nodeCache);
    if (!refusals.isEmpty()) {
      log.warn("Cannot reconcile NodeCache {} on node {}: {}", nodeCacheName, node, String.join("; ", refusals));
      ready = true;
      lastPass = clock.instant();
      return;
    }
    try {
      AgentSettings settings = NodeCacheSettings.of(nodeCache, roots);
      NodeReport report = engine.pass(settings);
      metrics.update(report);
      reports.write(nodeCache, report);
      lastPass = clock.instant();
      ready = true;
    } catch (IOException | RuntimeException e) {
      log.warn("Cannot reconcile NodeCache {} on node {}: {}", nodeCacheName, node, e.toString());
    }
  }

  private void cleanUp(NodeCache nodeCache) {
    if (cleanedUp) {
      return;
    }
    try {
      engine.close();
      // The records of what it made are in its cache folder; outside the cache roots it never made anything.
      String cacheDirectory = NodeCachePaths.cacheDirectory(nodeCache.getSpec());
      if (HostPathRoots.isUnder(cacheDirectory, roots.cacheRoots())) {
        CacheAgent.removeOwned(NodeCacheSettings.nodeRoots(roots), Path.of(cacheDirectory), nodeCacheName);
      }
      reports.delete(nodeCache);
      cleanedUp = true;
      log.info("NodeCache {} is being deleted: removed its mounts and copies on node {}", nodeCacheName, node);
    } catch (IOException | RuntimeException e) {
      log.warn("Cannot clean up NodeCache {} on node {}: {}; retrying", nodeCacheName, node, e.toString());
    }
    lastPass = clock.instant();
  }

  private void leaveIfNotSelected() {
    NodeCache held = watched.accepted();
    if (held == null || cleanedUp) {
      return;
    }
    try {
      NodeCache now = client.resources(NodeCache.class).withName(nodeCacheName).get();
      Node self = client.nodes().withName(node).get();
      String reason;
      if (now == null || now.getMetadata().getDeletionTimestamp() != null
          || !now.getMetadata().getUid().equals(held.getMetadata().getUid())) {
        reason = "NodeCache " + nodeCacheName + " is gone or being deleted";
      } else if (self == null) {
        reason = "node " + node + " is gone";
      } else if (!NodeSelection.selects(now.specAccepted() ? now.getSpec() : held.getSpec(), self)) {
        reason = "node " + node + " is no longer selected (spec.nodeSelector, spec.tolerations)";
      } else {
        return; // another agent takes over
      }
      String cacheDirectory = NodeCachePaths.cacheDirectory(held.getSpec());
      if (HostPathRoots.isUnder(cacheDirectory, roots.cacheRoots())) {
        CacheAgent.removeOwned(NodeCacheSettings.nodeRoots(roots), Path.of(cacheDirectory), nodeCacheName);
      }
      reports.delete(held); // nothing of the NodeCache is left here: the operator need not wait for this node
      log.info("Stopping: {}, so removed the mounts and copies of NodeCache {} on node {}", reason, nodeCacheName,
          node);
    } catch (IOException | RuntimeException e) {
      log.warn("Cannot remove the mounts and copies of NodeCache {} on node {} while stopping: {}; reset the node"
          + " with quarry-agent cleanup", nodeCacheName, node, e.toString());
    }
  }

  /** Alive while passes keep finishing: three intervals without one means the loop is stuck. */
  public boolean live() {
    NodeCache nodeCache = watched.accepted();
    Duration interval = nodeCache == null ? WAIT_FOR_NODE_CACHE : NodeCacheSettings.interval(nodeCache);
    return Duration.between(lastPass, clock.instant()).compareTo(interval.multipliedBy(3).plusMinutes(1)) < 0;
  }

  public boolean ready() {
    return ready;
  }

  public AgentMetrics metrics() {
    return metrics;
  }

  /**
   * Stops the agent (SIGTERM). Its mounts and copies stay when another agent takes over on this node (a rolling update,
   * a drain, a restart); they are removed when none will: the NodeCache is gone or being deleted (or another of the
   * same name replaced it), or this node no longer has the labels of its {@code nodeSelector} or has a taint it does
   * not tolerate. When the NodeCache or the Node cannot be read, they stay.
   */
  @Override
  public void close() {
    stopped = true;
    engine.wake();
    informer.close();
    engine.close(); // waits for a running pass
    leaveIfNotSelected();
    slots.close();
    stores.values().forEach(ObjectStores::close);
  }
}
