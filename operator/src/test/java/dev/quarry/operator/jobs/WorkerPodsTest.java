package dev.quarry.operator.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.common.SecretKeys;
import dev.quarry.api.common.WorkerPlacement;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Worker pods carry the admin's defaults from the chart's worker.* values (a resource's own resources and placement
 * replace them, field by field; its security contexts cannot), and the
 * S3 connection and credentials every worker pod gets under each of the admin's credential settings.
 */
class WorkerPodsTest {
  private static final ObjectStore STORE = new ObjectStore(null, "us-east-1", true, null);
  private static final ObjectStore WITHOUT_SECRET = new ObjectStore("http://minio.storage:9000", null, null, null);
  private static final ObjectStore WITH_SECRET = new ObjectStore("http://minio.storage:9000", null, null,
      new SecretKeys("s3-credentials", null, null));
  private static final ResourceRequirements DEFAULT_RESOURCES = new ResourceRequirementsBuilder()
      .addToRequests("memory", new Quantity("2Gi")).build();
  private static final WorkerPodDefaults ADMINS = new WorkerPodDefaults(DEFAULT_RESOURCES,
      Map.of("pool", "cpu"), List.of(new TolerationBuilder().withKey("batch").withOperator("Exists").build()),
      new AffinityBuilder().withNewNodeAffinity().endNodeAffinity().build(), "batch-low",
      WorkerPodDefaults.BUILT_IN.podSecurityContext(), WorkerPodDefaults.BUILT_IN.securityContext(),
      List.of(new LocalObjectReference("registry")));

  @Test
  void theAdminsDefaultsPlaceAndPullEveryWorkerPod() {
    PodSpec pod = spec(ADMINS, null);
    assertThat(pod.getNodeSelector()).isEqualTo(Map.of("pool", "cpu"));
    assertThat(pod.getTolerations()).singleElement().satisfies(t -> assertThat(t.getKey()).isEqualTo("batch"));
    assertThat(pod.getAffinity().getNodeAffinity()).isNotNull();
    assertThat(pod.getPriorityClassName()).isEqualTo("batch-low");
    assertThat(pod.getImagePullSecrets()).extracting(LocalObjectReference::getName).containsExactly("registry");
    assertThat(pod.getContainers().get(0).getResources()).isEqualTo(DEFAULT_RESOURCES);
  }

  @Test
  void aResourcesOwnResourcesReplaceTheDefault() {
    ResourceRequirements own = new ResourceRequirementsBuilder().addToLimits("memory", new Quantity("8Gi")).build();
    assertThat(spec(ADMINS, own).getContainers().get(0).getResources()).isEqualTo(own);
  }

  @Test
  void aResourcesNodeSelectorReplacesTheDefaultWhole() {
    PodSpec pod = placed(ADMINS, new Placement(Map.of("accelerator", "a100"), null, null, null));
    assertThat(pod.getNodeSelector()).isEqualTo(Map.of("accelerator", "a100"));
    assertThat(pod.getPriorityClassName()).as("the other fields keep the default").isEqualTo("batch-low");
    assertThat(pod.getTolerations()).extracting(Toleration::getKey).containsExactly("batch");
  }

  @Test
  void aResourcesTolerationsReplaceTheDefaultWhole() {
    Toleration gpu = new TolerationBuilder().withKey("nvidia.com/gpu").withOperator("Exists").build();
    PodSpec pod = placed(ADMINS, new Placement(null, List.of(gpu), null, null));
    assertThat(pod.getTolerations()).containsExactly(gpu);
    assertThat(pod.getNodeSelector()).isEqualTo(Map.of("pool", "cpu"));
  }

  @Test
  void aResourcesAffinityReplacesTheDefaultWhole() {
    Affinity spread = new AffinityBuilder().withNewPodAntiAffinity()
        .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(50).withNewPodAffinityTerm()
        .withTopologyKey("kubernetes.io/hostname").endPodAffinityTerm()
        .endPreferredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity().build();
    PodSpec pod = placed(ADMINS, new Placement(null, null, spread, null));
    assertThat(pod.getAffinity()).isEqualTo(spread);
    assertThat(pod.getAffinity().getNodeAffinity()).as("not merged with the default's node affinity").isNull();
  }

  @Test
  void aResourcesPriorityClassReplacesTheDefault() {
    PodSpec pod = placed(ADMINS, new Placement(null, null, null, "training-high"));
    assertThat(pod.getPriorityClassName()).isEqualTo("training-high");
    assertThat(pod.getAffinity().getNodeAffinity()).isNotNull();
  }

  @Test
  void anEmptyPlacementKeepsEveryDefault() {
    PodSpec pod = placed(ADMINS, new Placement(Map.of(), List.of(), null, null));
    assertThat(pod.getNodeSelector()).isEqualTo(Map.of("pool", "cpu"));
    assertThat(pod.getTolerations()).extracting(Toleration::getKey).containsExactly("batch");
    assertThat(pod.getAffinity().getNodeAffinity()).isNotNull();
    assertThat(pod.getPriorityClassName()).isEqualTo("batch-low");
  }

  @Test
  void aPlacementLeavesTheHardenedSecurityContextsAlone() {
    PodSpec pod = placed(ADMINS, new Placement(Map.of("accelerator", "a100"), null, null, "training-high"));
    assertThat(pod.getSecurityContext()).isEqualTo(WorkerPodDefaults.BUILT_IN.podSecurityContext());
    assertThat(pod.getContainers().get(0).getSecurityContext())
        .isEqualTo(WorkerPodDefaults.BUILT_IN.securityContext());
    assertThat(pod.getImagePullSecrets()).extracting(LocalObjectReference::getName).containsExactly("registry");
  }

  /** The fields ShardSortJob's spec.workers and DatasetSync's spec share. */
  private record Placement(Map<String, String> nodeSelector, List<Toleration> tolerations, Affinity affinity,
      String priorityClassName) implements WorkerPlacement {}

  @Test
  void withoutTheChartWorkersRunHardenedAndUnplaced() {
    PodSpec pod = spec(WorkerPodDefaults.BUILT_IN, null);
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(WorkerPodDefaults.WORKER_UID);
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    var container = pod.getContainers().get(0).getSecurityContext();
    assertThat(container.getAllowPrivilegeEscalation()).isFalse();
    assertThat(container.getReadOnlyRootFilesystem()).isTrue();
    assertThat(container.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    assertThat(pod.getNodeSelector()).isNull();
    assertThat(pod.getTolerations()).isNull();
    assertThat(pod.getImagePullSecrets()).isNull();
    assertThat(pod.getPriorityClassName()).isNull();
    assertThat(pod.getContainers().get(0).getResources()).isNull();
  }

  /** The chart's default: a resource without a Secret sends unsigned requests, and the metadata endpoint is off. */
  @Test
  void withoutAmbientCredentialsWorkersSignOnlyWithTheirResourcesSecret() {
    for (ObjectStore store : new ObjectStore[] {WITHOUT_SECRET, WITH_SECRET, null}) {
      assertThat(values(env(false, store))).as("store %s", store)
          .containsEntry("QUARRY_S3_AMBIENT_CREDENTIALS", "false")
          .containsEntry("AWS_EC2_METADATA_DISABLED", "true");
    }
    assertThat(env(false, WITHOUT_SECRET)).extracting(EnvVar::getName).doesNotContain("AWS_ACCESS_KEY_ID");
    assertThat(env(false, WITH_SECRET)).extracting(EnvVar::getName)
        .contains("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY");
  }

  /** Allowed by the admin (IRSA, workload identity): the default chain of the pod, the metadata endpoint on. */
  @Test
  void withAmbientCredentialsWorkersUseThePodsIdentity() {
    for (ObjectStore store : new ObjectStore[] {WITHOUT_SECRET, WITH_SECRET, null}) {
      assertThat(values(env(true, store))).as("store %s", store)
          .containsEntry("QUARRY_S3_AMBIENT_CREDENTIALS", "true")
          .doesNotContainKey("AWS_EC2_METADATA_DISABLED");
    }
  }

  private static PodSpec spec(WorkerPodDefaults defaults, ResourceRequirements own) {
    return spec(false, defaults, STORE, own, null);
  }

  private static PodSpec placed(WorkerPodDefaults defaults, WorkerPlacement placement) {
    return spec(false, defaults, STORE, null, placement);
  }

  private static List<EnvVar> env(boolean ambientCredentials, ObjectStore store) {
    return spec(ambientCredentials, WorkerPodDefaults.BUILT_IN, store, null, null).getContainers().get(0).getEnv();
  }

  private static PodSpec spec(boolean ambientCredentials, WorkerPodDefaults defaults, ObjectStore store,
      ResourceRequirements own, WorkerPlacement placement) {
    WorkerSettings settings = new WorkerSettings("quarry-worker:1", "IfNotPresent", null, 60, EndpointAllowlist.ANY,
        ambientCredentials, defaults);
    return new WorkerPods(settings).spec(store, List.of("sync", "status"), own, placement, List.of()).build();
  }

  private static Map<String, String> values(List<EnvVar> env) {
    return env.stream().filter(v -> v.getValue() != null).collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
  }
}
