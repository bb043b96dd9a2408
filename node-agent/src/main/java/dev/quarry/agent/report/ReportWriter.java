package dev.quarry.agent.report;

import dev.quarry.api.common.Conditions;
import dev.quarry.api.nodecache.CacheDecision;
import dev.quarry.api.nodecache.CachePhase;
import dev.quarry.api.nodecache.ImageReport;
import dev.quarry.api.nodecache.ImageState;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCacheReport;
import dev.quarry.api.nodecache.NodeCacheReportSpec;
import dev.quarry.api.nodecache.NodeCacheReportStatus;
import dev.quarry.core.cache.agent.NodeReport;
import dev.quarry.core.units.ByteSize;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Writes this node's {@link NodeCacheReport} for one NodeCache: created once, owned by the NodeCache (so it goes when
 * the NodeCache goes), its status replaced only when something a person would see changed, or as a heartbeat.
 */
public final class ReportWriter {
  private static final Duration HEARTBEAT = Duration.ofMinutes(1);

  private final KubernetesClient client;
  private final String node;
  private NodeCacheReportStatus lastWritten;
  private NodeCacheReport current;
  private Instant lastWriteTime = Instant.EPOCH;

  public ReportWriter(KubernetesClient client, String node) {
    this.client = client;
    this.node = node;
  }

  /** Publishes {@code report} as the status of this node's report on {@code nodeCache}. */
  public void write(NodeCache nodeCache, NodeReport report) {
    NodeCacheReportStatus status = keepTransitionTime(status(nodeCache, report));
    boolean changed = lastWritten == null || !sameContent(lastWritten, status);
    if (!changed && Duration.between(lastWriteTime, report.time()).compareTo(HEARTBEAT) < 0) {
      return;
    }
    String name = NodeCacheReport.nameOf(nodeCache.getMetadata().getName(), node);
    // The report as last written: its resource version is all an update needs, so steady state is one PUT.
    NodeCacheReport existing = current != null ? current
        : client.resources(NodeCacheReport.class).withName(name).get();
    if (existing == null) {
      existing = client.resources(NodeCacheReport.class).resource(newReport(nodeCache, name)).create();
    }
    NodeCacheReport update = new NodeCacheReport();
    update.setMetadata(new ObjectMetaBuilder().withName(name)
        .withResourceVersion(existing.getMetadata().getResourceVersion()).build());
    update.setSpec(existing.getSpec());
    update.setStatus(status);
    try {
      current = client.resources(NodeCacheReport.class).resource(update).updateStatus();
    } catch (KubernetesClientException e) {
      current = null; // read it again next time
      if (e.getCode() != 409 && e.getCode() != 404) {
        throw e;
      }
      return; // changed or deleted by someone else (a restarted agent of ours); the next pass writes again
    }
    lastWritten = status;
    lastWriteTime = report.time();
  }

  /** Deletes this node's report of {@code nodeCache}: the agent's last act when the NodeCache is deleted. */
  public void delete(NodeCache nodeCache) {
    current = null;
    client.resources(NodeCacheReport.class)
        .withName(NodeCacheReport.nameOf(nodeCache.getMetadata().getName(), node))
        .delete();
  }

  private NodeCacheReport newReport(NodeCache nodeCache, String name) {
    NodeCacheReport report = new NodeCacheReport();
    report.setMetadata(new ObjectMetaBuilder()
        .withName(name)
        .withLabels(Map.of(NodeCacheReport.NODE_CACHE_LABEL, nodeCache.getMetadata().getName(),
            NodeCacheReport.NODE_LABEL, node))
        .withOwnerReferences(new OwnerReferenceBuilder()
            .withApiVersion(nodeCache.getApiVersion())
            .withKind(nodeCache.getKind())
            .withName(nodeCache.getMetadata().getName())
            .withUid(nodeCache.getMetadata().getUid())
            .build())
        .build());
    report.setSpec(new NodeCacheReportSpec(nodeCache.getMetadata().getName(), node));
    return report;
  }

  static NodeCacheReportStatus status(NodeCache nodeCache, NodeReport report) {
    CachePhase phase = report.anyFailed() ? CachePhase.Degraded
        : report.allMounted() ? CachePhase.Ready : CachePhase.Pending;
    List<ImageReport> images = report.images().stream()
        .map(i -> new ImageReport(i.name(), ImageState.valueOf(title(i.state().name())), i.sizeBytes(),
            i.sourceBytes(), i.localBytes(), i.copyPercent(), i.reason(), i.message()))
        .toList();
    List<CacheDecision> decisions = report.decisions().stream()
        .map(d -> new CacheDecision(d.time().toString(), d.image(), d.action(), d.reason()))
        .toList();
    long total = report.sourceBytes() + report.localBytes();
    String hit = total == 0 ? "-" : Math.round(100.0 * report.localBytes() / total) + "%";
    return new NodeCacheReportStatus(nodeCache.getMetadata().getGeneration(), phase, report.time().toString(),
        report.mounted(), report.cached(), ByteSize.format(report.usedBytes()).replace(" ", ""),
        report.usedBytes(), report.capacityBytes(), report.localBytes(), report.sourceBytes(), hit, images,
        decisions, List.of(ready(nodeCache, report, phase)));
  }

  private static Condition ready(NodeCache nodeCache, NodeReport report, CachePhase phase) {
    String message = switch (phase) {
      case Ready -> "All " + report.images().size() + " images are mounted; " + report.cached()
          + " served from local copies";
      case Degraded -> report.images().stream()
          .filter(i -> i.state() == dev.quarry.core.cache.agent.ImageState.FAILED)
          .map(i -> i.name() + ": " + i.message())
          .findFirst().orElse("an image failed");
      case Pending -> (report.images().size() - report.mounted()) + " of " + report.images().size()
          + " images are not mounted yet";
    };
    return new ConditionBuilder()
        .withType(Conditions.READY)
        .withStatus(phase == CachePhase.Ready ? "True" : "False")
        .withReason(phase == CachePhase.Ready ? "AllImagesMounted"
            : phase == CachePhase.Degraded ? "ImageFailed" : "Mounting")
        .withMessage(message)
        .withObservedGeneration(nodeCache.getMetadata().getGeneration())
        .withLastTransitionTime(report.time().toString())
        .build();
  }

  /** A condition's transition time moves only when its status does. */
  private NodeCacheReportStatus keepTransitionTime(NodeCacheReportStatus status) {
    if (lastWritten == null) {
      return status;
    }
    Condition before = lastWritten.conditions().get(0);
    Condition now = status.conditions().get(0);
    if (before.getStatus().equals(now.getStatus())) {
      now.setLastTransitionTime(before.getLastTransitionTime());
    }
    return status;
  }

  /** Equal but for times: a report that only moved its clock is not worth a write. */
  private static boolean sameContent(NodeCacheReportStatus a, NodeCacheReportStatus b) {
    return Objects.equals(a.observedGeneration(), b.observedGeneration()) && a.phase() == b.phase()
        && Objects.equals(a.images(), b.images()) && Objects.equals(a.decisions(), b.decisions())
        && Objects.equals(a.cacheUsedBytes(), b.cacheUsedBytes())
        && Objects.equals(a.conditions().get(0).getMessage(), b.conditions().get(0).getMessage());
  }

  private static String title(String upper) {
    return upper.charAt(0) + upper.substring(1).toLowerCase(java.util.Locale.ROOT);
  }
}
