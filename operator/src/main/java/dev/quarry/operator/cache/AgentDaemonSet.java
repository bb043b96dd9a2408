package dev.quarry.operator.cache;

import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.nodecache.HostPathRoots;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCacheReport;
import dev.quarry.api.nodecache.NodeCacheSecrets;
import dev.quarry.api.nodecache.NodeCacheSpec;
import dev.quarry.operator.jobs.ChildNames;
import dev.quarry.operator.jobs.Ownership;
import dev.quarry.operator.jobs.WorkerJson;
import dev.quarry.operator.jobs.WorkerLabels;
import dev.quarry.operator.jobs.WorkerPods;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.HTTPGetActionBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The agent DaemonSet of one NodeCache. It mounts the admin's roots, never a folder a NodeCache names: the kubelet
 * follows links in a hostPath, so a NodeCache's own paths are resolved by the agent inside the roots, without
 * following anything. The agent mounts images under a mount root and must make those mounts visible to other pods,
 * so it is privileged and each mount root is Bidirectional; it sees the host's /dev because the loop devices it
 * attaches appear there after it started; it reads path sources under the source roots, read-only.
 */
final class AgentDaemonSet {
  static final String CONTAINER = "agent";
  static final String JAR = "/opt/quarry/quarry-agent.jar";
  static final int METRICS_PORT = 9400;
  /** Read by the agent's logback.xml, as by the operator's. */
  static final String LOG_FORMAT_VARIABLE = "QUARRY_LOG_FORMAT";
  /** For Prometheus' kubernetes-pods discovery; the chart's PodMonitor finds the pods by their labels instead. */
  static final Map<String, String> SCRAPE_ANNOTATIONS = Map.of("prometheus.io/scrape", "true",
      "prometheus.io/port", String.valueOf(METRICS_PORT), "prometheus.io/path", "/metrics");
  /** A hash of the desired pod template, so an unchanged DaemonSet is never written again. */
  static final String SPEC_HASH_ANNOTATION = "quarry.dev/spec-hash";
  private static final long GRACE_SECONDS = 30;

  private final AgentSettings settings;

  AgentDaemonSet(AgentSettings settings) {
    this.settings = settings;
  }

  static String name(NodeCache cache) {
    return ChildNames.of("quarry-agent", cache.getMetadata().getName());
  }

  static Map<String, String> selector(NodeCache cache) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(WorkerLabels.COMPONENT, "agent");
    labels.put(NodeCacheReport.NODE_CACHE_LABEL, cache.getMetadata().getName());
    return labels;
  }

  DaemonSet build(NodeCache cache) {
    NodeCacheSpec spec = cache.getSpec();
    Map<String, String> labels = new LinkedHashMap<>(selector(cache));
    labels.put(WorkerLabels.MANAGED_BY, WorkerLabels.MANAGER);
    HostPathRoots roots = settings.roots();
    List<Volume> volumes = new ArrayList<>();
    List<VolumeMount> mounts = new ArrayList<>();
    for (int i = 0; i < roots.mountRoots().size(); i++) {
      hostPath(volumes, mounts, "mount-root-" + i, roots.mountRoots().get(i), "DirectoryOrCreate", "Bidirectional",
          false);
    }
    for (int i = 0; i < roots.cacheRoots().size(); i++) {
      hostPath(volumes, mounts, "cache-root-" + i, roots.cacheRoots().get(i), "DirectoryOrCreate", null, false);
    }
    hostPath(volumes, mounts, "dev", "/dev", "Directory", null, false);
    for (int i = 0; i < roots.sourceRoots().size(); i++) {
      // No type check: a node lacking the shared storage still runs the agent, which reports the image as Failed;
      // HostToContainer shows the agent the storage once it is mounted.
      hostPath(volumes, mounts, "source-root-" + i, roots.sourceRoots().get(i), null, "HostToContainer", true);
    }
    DaemonSet daemonSet = new DaemonSetBuilder()
        .withNewMetadata().withName(name(cache)).withNamespace(settings.namespace()).withLabels(labels)
        .withOwnerReferences(Ownership.controllerOf(cache)).endMetadata()
        .withNewSpec()
        .withNewSelector().withMatchLabels(selector(cache)).endSelector()
        .withNewUpdateStrategy().withType("RollingUpdate").endUpdateStrategy()
        .withNewTemplate()
        .withNewMetadata().withLabels(labels).withAnnotations(new TreeMap<>(SCRAPE_ANNOTATIONS)).endMetadata()
        .withNewSpec()
        .withServiceAccountName(settings.serviceAccount())
        .withImagePullSecrets(settings.imagePullSecrets().isEmpty() ? null : settings.imagePullSecrets())
        .withPriorityClassName(settings.priorityClassName())
        .withNodeSelector(spec.nodeSelector())
        .withTolerations(spec.tolerations())
        .withTerminationGracePeriodSeconds(GRACE_SECONDS)
        .withContainers(new ContainerBuilder()
            .withName(CONTAINER)
            .withImage(settings.image())
            .withImagePullPolicy(settings.pullPolicy())
            // The image's entrypoint is java with its options and -jar JAR; these are the agent's arguments.
            .withArgs("run", "--node-cache", cache.getMetadata().getName(), "--node", "$(NODE_NAME)")
            .withEnv(environment(spec, settings))
            .addNewPort().withName("metrics").withContainerPort(METRICS_PORT).withProtocol("TCP").endPort()
            .withLivenessProbe(probe("/healthz", 3))
            .withReadinessProbe(probe("/readyz", 1))
            .withResources(settings.resources())
            .withNewSecurityContext().withPrivileged(true).withRunAsUser(0L).endSecurityContext()
            .withVolumeMounts(mounts)
            .build())
        .withVolumes(volumes)
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
    daemonSet.getMetadata().setAnnotations(Map.of(SPEC_HASH_ANNOTATION,
        ChildNames.hash(WorkerJson.write(daemonSet.getSpec()))));
    return daemonSet;
  }

  /**
   * The node and namespace, what the admin allows (the agent checks each spec it reads), and the credentials: the
   * NodeCache's Secret, and the node's own only where the admin allows.
   */
  private static List<EnvVar> environment(NodeCacheSpec spec, AgentSettings settings) {
    List<EnvVar> env = new ArrayList<>();
    env.add(new EnvVarBuilder().withName("NODE_NAME").withNewValueFrom().withNewFieldRef().withFieldPath(
        "spec.nodeName").endFieldRef().endValueFrom().build());
    env.add(new EnvVarBuilder().withName("POD_NAMESPACE").withNewValueFrom().withNewFieldRef().withFieldPath(
        "metadata.namespace").endFieldRef().endValueFrom().build());
    new TreeMap<>(settings.roots().toEnvironment()).forEach((name, value) -> env.add(new EnvVar(name, value, null)));
    env.add(new EnvVar(EndpointAllowlist.ENVIRONMENT_VARIABLE, settings.endpoints().toEnvironment(), null));
    env.add(new EnvVar(NodeCacheSecrets.ENVIRONMENT_VARIABLE, settings.secrets().toEnvironment(), null));
    env.addAll(WorkerPods.ambientCredentials(settings.ambientCredentials()));
    if (settings.logFormat() != null) {
      env.add(new EnvVar(LOG_FORMAT_VARIABLE, settings.logFormat(), null));
    }
    if (spec.store() != null) {
      env.addAll(WorkerPods.credentials(spec.store().credentialsSecret()));
    }
    return env;
  }

  private static Probe probe(String path, int failureThreshold) {
    return new ProbeBuilder().withHttpGet(new HTTPGetActionBuilder().withPath(path)
            .withPort(new IntOrString("metrics")).build())
        .withPeriodSeconds(10).withFailureThreshold(failureThreshold).build();
  }

  private static void hostPath(List<Volume> volumes, List<VolumeMount> mounts, String name, String path, String type,
      String propagation, boolean readOnly) {
    volumes.add(new VolumeBuilder().withName(name).withNewHostPath().withPath(path).withType(type).endHostPath()
        .build());
    mounts.add(new VolumeMountBuilder().withName(name).withMountPath(path).withMountPropagation(propagation)
        .withReadOnly(readOnly ? Boolean.TRUE : null).build());
  }

  static boolean upToDate(DaemonSet existing, DaemonSet desired) {
    return existing != null && existing.getMetadata().getAnnotations() != null && Objects.equals(
        existing.getMetadata().getAnnotations().get(SPEC_HASH_ANNOTATION),
        desired.getMetadata().getAnnotations().get(SPEC_HASH_ANNOTATION));
  }
}
