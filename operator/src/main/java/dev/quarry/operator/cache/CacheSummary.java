package dev.quarry.operator.cache;

import dev.quarry.api.nodecache.AcceptedPaths;
import dev.quarry.api.nodecache.CacheImage;
import dev.quarry.api.nodecache.CachePhase;
import dev.quarry.api.nodecache.ImageReport;
import dev.quarry.api.nodecache.ImageState;
import dev.quarry.api.nodecache.ImageSummary;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCacheReport;
import dev.quarry.api.nodecache.NodeCacheReportStatus;
import dev.quarry.api.nodecache.NodeCacheStatus;
import dev.quarry.operator.status.ReadyCondition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * A NodeCache's status, summarized from its agents' reports and its DaemonSet: how many selected nodes mount every
 * image at the current generation, how many local copies exist, and how much traffic the copies serve.
 */
final class CacheSummary {
  private static final int NODES_NAMED = 5;

  private final ReadyCondition conditions;
  private final String agentNamespace;

  CacheSummary(ReadyCondition conditions, String agentNamespace) {
    this.conditions = conditions;
    this.agentNamespace = agentNamespace;
  }

  NodeCacheStatus summarize(NodeCache cache, int nodesSelected, List<NodeCacheReport> reports) {
    long generation = cache.getMetadata().getGeneration() == null ? 1 : cache.getMetadata().getGeneration();
    List<NodeCacheReport> sorted = reports.stream().filter(r -> r.getStatus() != null)
        .sorted(Comparator.comparing(r -> r.getSpec() == null ? "" : r.getSpec().node())).toList();
    List<NodeCacheReport> current = sorted.stream()
        .filter(r -> Objects.equals(r.getStatus().observedGeneration(), generation)).toList();
    List<NodeCacheReport> ready = current.stream().filter(r -> r.getStatus().phase() == CachePhase.Ready).toList();
    List<NodeCacheReport> degraded = current.stream().filter(r -> r.getStatus().phase() == CachePhase.Degraded)
        .toList();
    int cachedCopies = sorted.stream().mapToInt(r -> value(r.getStatus().cached())).sum();
    long local = sum(sorted, NodeCacheReportStatus::bytesReadLocal);
    long source = sum(sorted, NodeCacheReportStatus::bytesReadSource);
    String hitRatio = local + source == 0 ? null : Math.round(100.0 * local / (local + source)) + "%";
    CachePhase phase = !degraded.isEmpty() ? CachePhase.Degraded
        : nodesSelected > 0 && ready.size() >= nodesSelected ? CachePhase.Ready : CachePhase.Pending;
    String message = message(cache, phase, nodesSelected, sorted, current, ready, degraded, cachedCopies, hitRatio);
    String reason = switch (phase) {
      case Ready -> "AllNodesReady";
      case Degraded -> "NodesDegraded";
      case Pending -> nodesSelected == 0 ? "NoNodesSelected" : "NodesNotReady";
    };
    return new NodeCacheStatus(generation, generation, AcceptedPaths.of(cache.getSpec()), phase, ready.size() + "/" + nodesSelected, nodesSelected, ready.size(),
        cachedCopies, local, source, hitRatio, images(cache, sorted), conditions.ready(
            cache.getStatus() == null ? null : cache.getStatus().conditions(), phase == CachePhase.Ready, reason,
            message, generation));
  }

  /**
   * The status of a NodeCache whose spec the operator refuses: Degraded, with the reason and what to change; the
   * generation accepted before stays, and its agents keep acting on that spec.
   */
  NodeCacheStatus refused(NodeCache cache, String reason, String message) {
    long generation = cache.getMetadata().getGeneration() == null ? 1 : cache.getMetadata().getGeneration();
    NodeCacheStatus old = cache.getStatus();
    return new NodeCacheStatus(generation, old == null ? null : old.acceptedGeneration(),
        old == null ? null : old.acceptedPaths(), CachePhase.Degraded,
        old == null ? null : old.nodes(),
        old == null ? null : old.nodesSelected(), old == null ? null : old.nodesReady(), null, null, null, null, null,
        conditions.ready(old == null ? null : old.conditions(), false, reason, message, generation));
  }

  private String message(NodeCache cache, CachePhase phase, int nodesSelected, List<NodeCacheReport> all,
      List<NodeCacheReport> current, List<NodeCacheReport> ready, List<NodeCacheReport> degraded,
      int cachedCopies, String hitRatio) {
    int images = cache.getSpec().images().size();
    if (phase == CachePhase.Ready) {
      return "All " + nodesSelected + " selected nodes mount all " + images + " images; " + cachedCopies
          + " local copies" + (hitRatio == null ? "" : ", " + hitRatio + " of reads served locally");
    }
    if (nodesSelected == 0) {
      return "No node runs the agent yet: check that some node matches spec.nodeSelector and tolerates its taints"
          + " (kubectl -n " + agentNamespace + " get daemonset " + AgentDaemonSet.name(cache) + ")";
    }
    List<String> problems = new ArrayList<>();
    for (NodeCacheReport report : degraded) {
      problems.add(report.getSpec().node() + ": " + failedImages(report));
    }
    for (NodeCacheReport report : all) {
      if (!current.contains(report)) {
        problems.add(report.getSpec().node() + ": still applying generation "
            + report.getStatus().observedGeneration() + " of " + cache.getMetadata().getGeneration());
      } else if (report.getStatus().phase() == CachePhase.Pending) {
        problems.add(report.getSpec().node() + ": mounting");
      }
    }
    int silent = nodesSelected - all.size();
    if (silent > 0) {
      problems.add(silent + " nodes have not reported yet (kubectl -n " + agentNamespace + " get pods -l "
          + NodeCacheReport.NODE_CACHE_LABEL + "=" + cache.getMetadata().getName()
          + " -o wide)");
    }
    String named = String.join("; ", problems.subList(0, Math.min(NODES_NAMED, problems.size())))
        + (problems.size() > NODES_NAMED ? "; and " + (problems.size() - NODES_NAMED) + " more" : "");
    return ready.size() + "/" + nodesSelected + " nodes ready. " + named;
  }

  private static String failedImages(NodeCacheReport report) {
    List<ImageReport> images = report.getStatus().images() == null ? List.of() : report.getStatus().images();
    List<String> failed = images.stream().filter(i -> i.state() == ImageState.Failed)
        .map(i -> "image " + i.name() + (i.message() == null ? " failed" : ": " + i.message())).toList();
    return failed.isEmpty() ? "degraded (kubectl get ncr " + report.getMetadata().getName() + " -o yaml)"
        : String.join(", ", failed);
  }

  private static List<ImageSummary> images(NodeCache cache, List<NodeCacheReport> reports) {
    List<ImageSummary> summaries = new ArrayList<>();
    for (CacheImage image : cache.getSpec().images()) {
      List<ImageReport> onNodes = reports.stream()
          .flatMap(r -> r.getStatus().images() == null ? Stream.empty()
              : r.getStatus().images().stream())
          .filter(i -> image.name().equals(i.name())).toList();
      int mounted = (int) onNodes.stream().filter(i -> i.state() == ImageState.Source
          || i.state() == ImageState.Copying || i.state() == ImageState.Cached).count();
      int cached = (int) onNodes.stream().filter(i -> i.state() == ImageState.Cached).count();
      summaries.add(new ImageSummary(image.name(), mounted, cached,
          onNodes.stream().mapToLong(i -> value(i.bytesReadLocal())).sum(),
          onNodes.stream().mapToLong(i -> value(i.bytesReadSource())).sum()));
    }
    return summaries;
  }

  private static long sum(List<NodeCacheReport> reports, Function<NodeCacheReportStatus, Long> field) {
    return reports.stream().mapToLong(r -> value(field.apply(r.getStatus()))).sum();
  }

  private static int value(Integer number) {
    return number == null ? 0 : number;
  }

  private static long value(Long number) {
    return number == null ? 0 : number;
  }
}
