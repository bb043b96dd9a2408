package dev.quarry.operator.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.common.ObjectStore;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Worker pods carry the admin's defaults from the chart's worker.* values; a resource's own resources win. */
class WorkerPodsTest {
  private static final ObjectStore STORE = new ObjectStore(null, "us-east-1", true, null);
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

  private static PodSpec spec(WorkerPodDefaults defaults, ResourceRequirements own) {
    WorkerSettings settings = new WorkerSettings("quarry-worker:1", "IfNotPresent", null, 60, EndpointAllowlist.ANY,
        defaults);
    return new WorkerPods(settings).spec(STORE, List.of("sync", "status"), own, List.of()).build();
  }
}
