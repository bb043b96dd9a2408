package dev.quarry.operator.cache;

import dev.quarry.api.nodecache.CachePhase;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCacheReport;
import dev.quarry.api.nodecache.NodeCacheReportStatus;
import dev.quarry.api.nodecache.NodeCacheSecrets;
import dev.quarry.api.nodecache.NodeCacheStatus;
import dev.quarry.operator.jobs.WorkerLabels;
import dev.quarry.operator.status.EventRecorder;
import dev.quarry.operator.status.KindMetrics;
import dev.quarry.operator.status.ReadyCondition;
import dev.quarry.operator.status.StatusWriter;
import dev.quarry.operator.status.WriteInterval;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one agent DaemonSet per NodeCache and summarizes the agents' reports into its status. On deletion it waits
 * for each agent to undo its mounts and delete its report (the finalizer is for that real cleanup on the nodes), never
 * longer than {@link #AGENT_CLEANUP_DEADLINE}; a node with no agent pod whose report still shows mounts or copies,
 * and which is still in the cluster, holds the NodeCache until an admin cleans it and deletes its report (a Warning
 * event says so after the deadline). Reports of other nodes without an agent are deleted.
 */
@ControllerConfiguration(name = "nodecache")
public final class NodeCacheReconciler implements Reconciler<NodeCache>, Cleaner<NodeCache> {
  static final Duration AGENT_CLEANUP_DEADLINE = Duration.ofMinutes(5);
  /** The shortest time between two status writes of one NodeCache (docs/operations.md, scale of the control plane). */
  static final Duration STATUS_WRITE_INTERVAL = Duration.ofSeconds(10);
  private static final Logger LOG = LoggerFactory.getLogger(NodeCacheReconciler.class);
  private static final long RECHECK_MILLIS = 5_000;
  private static final long REFUSED_RECHECK_MILLIS = 30_000;
  private static final long LEFT_BEHIND_RECHECK_MILLIS = 60_000;

  private final KubernetesClient client;
  private final AgentSettings settings;
  private final AgentDaemonSet daemonSets;
  private final CacheSummary summary;
  private final StatusWriter statusWriter;
  private final WriteInterval writeInterval;
  private final EventRecorder events;
  private final Clock clock;
  private final KindMetrics<NodeCache, NodeCacheStatus, CachePhase> metrics;

  public NodeCacheReconciler(KubernetesClient client, AgentSettings settings, Clock clock, MeterRegistry registry) {
    this.client = client;
    this.settings = settings;
    this.daemonSets = new AgentDaemonSet(settings);
    this.summary = new CacheSummary(new ReadyCondition(clock), settings.namespace());
    this.statusWriter = new StatusWriter();
    this.writeInterval = new WriteInterval(STATUS_WRITE_INTERVAL, clock);
    this.events = new EventRecorder(client, clock);
    this.clock = clock;
    // NodeCaches do not end: only how many are in each phase.
    this.metrics = new KindMetrics<>(registry, "NodeCache", CachePhase.class, NodeCacheStatus::phase,
        status -> null, status -> null, Set.of());
  }

  @Override
  public List<EventSource<?, NodeCache>> prepareEventSources(EventSourceContext<NodeCache> context) {
    metrics.countIn(context.getPrimaryCache());
    return List.of(
        new InformerEventSource<>(InformerEventSourceConfiguration.from(DaemonSet.class, NodeCache.class)
            .withName("nodecache-daemonsets").withNamespaces(settings.namespace())
            .withLabelSelector(WorkerLabels.SELECTOR + "," + NodeCacheReport.NODE_CACHE_LABEL)
            .withSecondaryToPrimaryMapper(WorkerLabels.toClusterOwner(NodeCacheReport.NODE_CACHE_LABEL)).build(),
            context),
        new InformerEventSource<>(InformerEventSourceConfiguration.from(NodeCacheReport.class, NodeCache.class)
            .withName("nodecache-reports").withLabelSelector(NodeCacheReport.NODE_CACHE_LABEL)
            .withSecondaryToPrimaryMapper(WorkerLabels.toClusterOwner(NodeCacheReport.NODE_CACHE_LABEL)).build(),
            context));
  }

  @Override
  public UpdateControl<NodeCache> reconcile(NodeCache cache, Context<NodeCache> context) {
    Optional<SpecRefusal> refusal = SpecRefusal.of(cache, context.getPrimaryCache().list().toList(), settings);
    if (refusal.isPresent()) {
      return refuse(cache, refusal.get(), context);
    }
    DaemonSet desired = daemonSets.build(cache);
    DaemonSet existing = context.getSecondaryResource(DaemonSet.class).orElse(null);
    if (!AgentDaemonSet.upToDate(existing, desired)) {
      client.resource(desired).fieldManager(StatusWriter.FIELD_MANAGER).forceConflicts().serverSideApply();
      LOG.info("agents-applied nodecache={} daemonset={}/{}", cache.getMetadata().getName(), settings.namespace(),
          desired.getMetadata().getName());
    }
    int selected = existing == null || existing.getStatus() == null
        || existing.getStatus().getDesiredNumberScheduled() == null ? 0
        : existing.getStatus().getDesiredNumberScheduled();
    NodeCacheStatus old = cache.getStatus();
    NodeCacheStatus status = summary.summarize(cache, selected, reports(cache, context));
    if (Objects.equals(old, status)) {
      return UpdateControl.noUpdate();
    }
    // Every agent report wakes this reconciler; the status is written once per interval however many nodes report.
    Duration wait = writeInterval.remaining(cache);
    if (!wait.isZero()) {
      return UpdateControl.<NodeCache>noUpdate().rescheduleAfter(wait.toMillis());
    }
    if (old == null || old.phase() != status.phase()) {
      String message = status.conditions().get(0).getMessage();
      if (status.phase() == CachePhase.Degraded) {
        events.warning(cache, "Degraded", message);
      } else {
        events.normal(cache, status.phase().name(), message);
      }
    }
    statusWriter.write(cache, status, context);
    writeInterval.wrote(cache);
    return UpdateControl.noUpdate();
  }

  /**
   * Leaves the agents as they are (a DaemonSet of an earlier, accepted spec keeps running: its agents refuse the new
   * spec themselves and keep what they mounted), but for the keys of a Secret no longer allowed, and says why in the
   * status. Checked again later, since an owner of
   * the paths may go away.
   */
  private UpdateControl<NodeCache> refuse(NodeCache cache, SpecRefusal refusal, Context<NodeCache> context) {
    if (SpecRefusal.SECRET_NOT_ALLOWED.equals(refusal.reason())) {
      context.getSecondaryResource(DaemonSet.class).ifPresent(this::revokeCredentials);
    }
    NodeCacheStatus old = cache.getStatus();
    NodeCacheStatus status = summary.refused(cache, refusal.reason(), refusal.message());
    if (old == null || old.phase() != status.phase() || !Objects.equals(reason(old), refusal.reason())) {
      events.warning(cache, refusal.reason(), refusal.message());
      LOG.info("spec-refused nodecache={} reason={}", cache.getMetadata().getName(), refusal.reason());
    }
    statusWriter.write(cache, status, context);
    return UpdateControl.<NodeCache>noUpdate().rescheduleAfter(REFUSED_RECHECK_MILLIS);
  }

  /**
   * The one change made to the agents of a refused spec: when its Secret is no longer one the admin lists (the list
   * was narrowed), they lose its keys and get the list as it is now, so that they refuse the spec themselves. The
   * spec hash goes too, so that the DaemonSet is applied whole again once the NodeCache is accepted.
   */
  private void revokeCredentials(DaemonSet existing) {
    List<EnvVar> env = existing.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv();
    List<EnvVar> revoked = env.stream()
        .filter(v -> v.getValueFrom() == null || v.getValueFrom().getSecretKeyRef() == null)
        .map(v -> NodeCacheSecrets.ENVIRONMENT_VARIABLE.equals(v.getName())
            ? new EnvVar(v.getName(), settings.secrets().toEnvironment(), null) : v)
        .toList();
    if (revoked.equals(env)) {
      return;
    }
    client.apps().daemonSets().inNamespace(existing.getMetadata().getNamespace())
        .withName(existing.getMetadata().getName()).edit(daemonSet -> {
          daemonSet.getSpec().getTemplate().getSpec().getContainers().get(0).setEnv(revoked);
          daemonSet.getMetadata().getAnnotations().remove(AgentDaemonSet.SPEC_HASH_ANNOTATION);
          return daemonSet;
        });
    LOG.info("credentials-revoked daemonset={}/{}", existing.getMetadata().getNamespace(),
        existing.getMetadata().getName());
  }

  private static String reason(NodeCacheStatus status) {
    return status.conditions() == null || status.conditions().isEmpty() ? null
        : status.conditions().get(0).getReason();
  }

  @Override
  public DeleteControl cleanup(NodeCache cache, Context<NodeCache> context) {
    List<NodeCacheReport> reports = reports(cache, context);
    if (reports.isEmpty()) {
      writeInterval.forget(cache);
      return DeleteControl.defaultDelete();
    }
    Set<String> agentNodes = agentNodes(cache);
    List<NodeCacheReport> waiting = reports.stream()
        .filter(report -> agentNodes.contains(report.getSpec().node())).toList();
    // No agent will clean these nodes, but they are in the cluster with the NodeCache's mounts or copies: an admin
    // must, so the NodeCache stays until their reports are deleted.
    List<NodeCacheReport> leftBehind = reports.stream()
        .filter(report -> !agentNodes.contains(report.getSpec().node()) && holdsSomething(report)
            && client.nodes().withName(report.getSpec().node()).get() != null).toList();
    Instant deleted = Instant.parse(cache.getMetadata().getDeletionTimestamp());
    boolean late = Duration.between(deleted, Instant.now(clock)).compareTo(AGENT_CLEANUP_DEADLINE) > 0;
    if (!leftBehind.isEmpty()) {
      if (late) {
        String name = cache.getMetadata().getName();
        events.warning(cache, "MountsLeftOnNodes", "No agent runs on " + nodes(leftBehind) + ", which still have"
            + " mounts or copies of NodeCache " + name + ": run quarry-agent cleanup --node-cache " + name
            + " on each, then delete its NodeCacheReport " + NodeCacheReport.nameOf(name, "<node>"));
      }
      return DeleteControl.noFinalizerRemoval().rescheduleAfter(late ? LEFT_BEHIND_RECHECK_MILLIS : RECHECK_MILLIS);
    }
    if (!waiting.isEmpty() && !late) {
      return DeleteControl.noFinalizerRemoval().rescheduleAfter(RECHECK_MILLIS);
    }
    if (!waiting.isEmpty()) {
      events.warning(cache, "AgentCleanupTimedOut", "Agents on " + nodes(waiting) + " did not remove their mounts"
          + " within " + AGENT_CLEANUP_DEADLINE.toMinutes() + " minutes; check those nodes for mounts left under "
          + cache.getSpec().mountRoot());
    }
    // Reports of nodes with no agent left would never be deleted by anyone else.
    for (NodeCacheReport report : reports) {
      client.resource(report).delete();
    }
    LOG.info("agents-released nodecache={} reportsDeleted={}", cache.getMetadata().getName(), reports.size());
    writeInterval.forget(cache);
    return DeleteControl.defaultDelete();
  }

  private static List<NodeCacheReport> reports(NodeCache cache, Context<NodeCache> context) {
    return context.getSecondaryResources(NodeCacheReport.class).stream()
        .filter(r -> r.getSpec() != null && cache.getMetadata().getName().equals(r.getSpec().nodeCache()))
        .toList();
  }

  /** Whether a report says its node has mounts or copies of the NodeCache. */
  private static boolean holdsSomething(NodeCacheReport report) {
    NodeCacheReportStatus status = report.getStatus();
    return status != null && ((status.mounted() != null && status.mounted() > 0)
        || (status.cacheUsedBytes() != null && status.cacheUsedBytes() > 0));
  }

  /** The nodes where an agent pod of this cache still runs (or is starting). */
  private Set<String> agentNodes(NodeCache cache) {
    return client.pods().inNamespace(settings.namespace())
        .withLabels(AgentDaemonSet.selector(cache)).list().getItems().stream()
        .filter(pod -> !"Succeeded".equals(phase(pod)) && !"Failed".equals(phase(pod)))
        .map(pod -> pod.getSpec().getNodeName()).filter(Objects::nonNull).collect(Collectors.toSet());
  }

  private static String phase(Pod pod) {
    return pod.getStatus() == null ? null : pod.getStatus().getPhase();
  }

  private static String nodes(List<NodeCacheReport> reports) {
    return reports.stream().map(r -> r.getSpec().node()).collect(Collectors.joining(", "));
  }
}
