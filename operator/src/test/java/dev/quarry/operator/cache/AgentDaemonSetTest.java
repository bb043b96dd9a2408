package dev.quarry.operator.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.nodecache.CacheImage;
import dev.quarry.api.nodecache.HostPathRoots;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCacheSecrets;
import dev.quarry.testkit.RepositoryRoot;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The agent's contract, as the DaemonSet states it: the node agent is written against exactly this. */
class AgentDaemonSetTest {
  private final AgentSettings settings = new AgentSettings("quarry-system", "quarry-agent:1", "IfNotPresent",
      "quarry-agent", null, null, HostPathRoots.DEFAULTS,
      new EndpointAllowlist(List.of("http://minio.storage.svc:9000")), new NodeCacheSecrets(List.of("s3-credentials")),
      false, List.of(), null);

  @Test
  void runsTheAgentJarWithItsNodeCacheAndNode() throws Exception {
    Container agent = container(build());
    assertThat(agent.getImage()).isEqualTo("quarry-agent:1");
    assertThat(agent.getArgs()).containsExactly("run", "--node-cache", "training-images", "--node", "$(NODE_NAME)");
    assertThat(agent.getEnv()).extracting(EnvVar::getName)
        .containsExactly("NODE_NAME", "POD_NAMESPACE", "QUARRY_NODECACHE_CACHE_ROOTS", "QUARRY_NODECACHE_MOUNT_ROOTS",
            "QUARRY_NODECACHE_SOURCE_ROOTS", "QUARRY_STORE_ENDPOINTS", "QUARRY_NODECACHE_CREDENTIALS_SECRETS",
            "QUARRY_S3_AMBIENT_CREDENTIALS", "AWS_EC2_METADATA_DISABLED", "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY");
    assertThat(agent.getEnv().get(0).getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName");
    assertThat(agent.getEnv().get(1).getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.namespace");
    assertThat(agent.getEnv().get(10).getValueFrom().getSecretKeyRef().getName()).isEqualTo("s3-credentials");
    assertThat(agent.getEnv().get(10).getValueFrom().getSecretKeyRef().getKey()).isEqualTo("AWS_SECRET_ACCESS_KEY");
    Map<String, String> env = new java.util.HashMap<>();
    agent.getEnv().stream().filter(v -> v.getValue() != null).forEach(v -> env.put(v.getName(), v.getValue()));
    assertThat(HostPathRoots.fromEnvironment(env)).as("the agent reads the roots the operator checks")
        .isEqualTo(settings.roots());
    assertThat(EndpointAllowlist.fromEnvironment(env)).isEqualTo(settings.endpoints());
    assertThat(NodeCacheSecrets.fromEnvironment(env)).isEqualTo(settings.secrets());
    assertThat(env).as("no ambient credentials unless the admin allows them")
        .containsEntry("QUARRY_S3_AMBIENT_CREDENTIALS", "false").containsEntry("AWS_EC2_METADATA_DISABLED", "true");
  }

  @Test
  void servesMetricsAndProbesOnPort9400() throws Exception {
    Container agent = container(build());
    assertThat(agent.getPorts()).singleElement().satisfies(port -> {
      assertThat(port.getName()).isEqualTo("metrics");
      assertThat(port.getContainerPort()).isEqualTo(9400);
    });
    assertThat(agent.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(agent.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
  }

  @Test
  void prometheusFindsTheAgentPodsByAnnotationOrByTheChartsPodMonitorLabels() throws Exception {
    var template = build().getSpec().getTemplate().getMetadata();
    assertThat(template.getAnnotations()).containsEntry("prometheus.io/scrape", "true")
        .containsEntry("prometheus.io/port", "9400").containsEntry("prometheus.io/path", "/metrics");
    String podMonitor = Files.readString(RepositoryRoot.find().resolve("charts/quarry/templates/monitors.yaml"));
    template.getLabels().entrySet().stream().filter(label -> !label.getKey().startsWith("quarry.dev/"))
        .forEach(label -> assertThat(podMonitor).contains(label.getKey() + ": " + label.getValue()));
  }

  @Test
  void theAgentLogsInTheFormatTheChartSets() throws Exception {
    AgentSettings json = new AgentSettings(settings.namespace(), settings.image(), settings.pullPolicy(),
        settings.serviceAccount(), null, null, settings.roots(), settings.endpoints(), settings.secrets(), false,
        List.of(), "json");
    assertThat(container(new AgentDaemonSet(json).build(nodeCache())).getEnv())
        .filteredOn(v -> v.getName().equals("QUARRY_LOG_FORMAT")).singleElement()
        .satisfies(v -> assertThat(v.getValue()).isEqualTo("json"));
  }

  @Test
  void pullsTheAgentImageWithTheChartsPullSecrets() throws Exception {
    AgentSettings pulling = new AgentSettings(settings.namespace(), settings.image(), settings.pullPolicy(),
        settings.serviceAccount(), null, null, settings.roots(), settings.endpoints(), settings.secrets(), false,
        List.of(new LocalObjectReference("registry")), null);
    assertThat(new AgentDaemonSet(pulling).build(nodeCache()).getSpec().getTemplate().getSpec()
        .getImagePullSecrets()).extracting(LocalObjectReference::getName).containsExactly("registry");
    assertThat(build().getSpec().getTemplate().getSpec().getImagePullSecrets()).isNull();
  }

  @Test
  void isPrivilegedAndMountsTheAdminsRootsOnlyTheMountRootsBidirectionalTheSourceRootsReadOnly() throws Exception {
    NodeCache cache = nodeCache();
    cache.getSpec().images().add(new CacheImage("coco", "/mnt/nfs/coco/train.sqfs", null, false, 0));
    DaemonSet daemonSet = new AgentDaemonSet(settings).build(cache);
    PodSpec pod = daemonSet.getSpec().getTemplate().getSpec();
    Container agent = container(daemonSet);
    assertThat(agent.getSecurityContext().getPrivileged()).isTrue();
    assertThat(agent.getSecurityContext().getRunAsUser()).isZero();
    // Never the NodeCache's own folders (its mount root, cache directory, source folders): the kubelet would follow
    // links in them; the agent resolves those inside the roots itself.
    assertThat(agent.getVolumeMounts()).extracting(VolumeMount::getMountPath, VolumeMount::getMountPropagation,
        VolumeMount::getReadOnly).containsExactly(
            tuple("/mnt/quarry", "Bidirectional", null),
            tuple("/var/lib/quarry", null, null),
            tuple("/dev", null, null),
            tuple("/mnt/nfs", "HostToContainer", true));
    assertThat(pod.getVolumes()).extracting(volume -> volume.getHostPath().getPath(),
        volume -> volume.getHostPath().getType()).containsExactly(
            tuple("/mnt/quarry", "DirectoryOrCreate"),
            tuple("/var/lib/quarry", "DirectoryOrCreate"),
            tuple("/dev", "Directory"),
            tuple("/mnt/nfs", null));
    assertThat(pod.getVolumes()).extracting(Volume::getName).doesNotHaveDuplicates();
    assertThat(pod.getServiceAccountName()).isEqualTo("quarry-agent");
    assertThat(pod.getTerminationGracePeriodSeconds()).isEqualTo(30);
    assertThat(pod.getNodeSelector()).isEqualTo(Map.of("nvidia.com/gpu.present", "true"));
    assertThat(pod.getTolerations()).singleElement().satisfies(t -> assertThat(t.getKey()).isEqualTo(
        "nvidia.com/gpu"));
  }

  @Test
  void everyRootOfEachKindIsMounted() throws Exception {
    AgentSettings several = new AgentSettings("quarry-system", "quarry-agent:1", "IfNotPresent", "quarry-agent",
        null, null, new HostPathRoots(List.of("/mnt/fast", "/mnt/slow"), List.of("/nvme"), List.of("/nfs/a",
            "/nfs/b")), EndpointAllowlist.ANY, NodeCacheSecrets.NONE, false, List.of(), null);
    List<Volume> volumes = new AgentDaemonSet(several).build(nodeCache()).getSpec().getTemplate().getSpec()
        .getVolumes();
    assertThat(volumes).extracting(Volume::getName, volume -> volume.getHostPath().getPath()).containsExactly(
        tuple("mount-root-0", "/mnt/fast"), tuple("mount-root-1", "/mnt/slow"), tuple("cache-root-0", "/nvme"),
        tuple("dev", "/dev"), tuple("source-root-0", "/nfs/a"), tuple("source-root-1", "/nfs/b"));
  }

  @Test
  void livesInTheOperatorsNamespaceOwnedByItsNodeCacheAndSelectsItsPods() throws Exception {
    DaemonSet daemonSet = build();
    assertThat(daemonSet.getMetadata().getName()).isEqualTo("quarry-agent-training-images");
    assertThat(daemonSet.getMetadata().getNamespace()).isEqualTo("quarry-system");
    assertThat(daemonSet.getMetadata().getOwnerReferences()).singleElement()
        .satisfies(owner -> assertThat(owner.getKind()).isEqualTo("NodeCache"));
    assertThat(daemonSet.getSpec().getSelector().getMatchLabels()).containsEntry("quarry.dev/nodecache",
        "training-images");
    assertThat(daemonSet.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(daemonSet.getSpec().getSelector().getMatchLabels());
  }

  @Test
  void theSpecHashChangesWithTheSpecOnly() throws Exception {
    DaemonSet first = build();
    assertThat(AgentDaemonSet.upToDate(first, build())).isTrue();
    NodeCache changed = nodeCache();
    changed.getSpec().nodeSelector().put("pool", "a100");
    assertThat(AgentDaemonSet.upToDate(first, new AgentDaemonSet(settings).build(changed))).isFalse();
  }

  private DaemonSet build() throws Exception {
    return new AgentDaemonSet(settings).build(nodeCache());
  }

  private static NodeCache nodeCache() throws Exception {
    NodeCache cache = new KubernetesSerialization().unmarshal(Files.readString(RepositoryRoot.find().resolve(
        "docs/examples/nodecache.yaml")), NodeCache.class);
    cache.getMetadata().setUid("uid-1");
    return cache;
  }

  private static Container container(DaemonSet daemonSet) {
    return daemonSet.getSpec().getTemplate().getSpec().getContainers().get(0);
  }
}
