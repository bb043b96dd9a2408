package dev.quarry.operator.jobs;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/**
 * What the cluster admin sets for every worker pod in the chart's {@code worker.*} values: where they run
 * (nodeSelector, tolerations, affinity, priority class), their security contexts, their default resources (a
 * resource's own resources replace them), and the Secrets their image is pulled with. Null or empty fields leave
 * the pod's field unset.
 */
public record WorkerPodDefaults(ResourceRequirements resources, Map<String, String> nodeSelector,
    List<Toleration> tolerations, Affinity affinity, String priorityClassName, PodSecurityContext podSecurityContext,
    SecurityContext securityContext, List<LocalObjectReference> imagePullSecrets) {
  /** The uid the worker image runs as (see worker-image/Dockerfile). */
  public static final long WORKER_UID = 1000;

  /** Non-root as the image's user, no privilege escalation, no capabilities, a read-only root filesystem. */
  public static final WorkerPodDefaults BUILT_IN = new WorkerPodDefaults(null, Map.of(), List.of(), null, null,
      new PodSecurityContextBuilder().withRunAsNonRoot(true).withRunAsUser(WORKER_UID).withRunAsGroup(WORKER_UID)
          .withFsGroup(WORKER_UID).withFsGroupChangePolicy("OnRootMismatch")
          .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile().build(),
      new SecurityContextBuilder().withAllowPrivilegeEscalation(false).withReadOnlyRootFilesystem(true)
          .withNewCapabilities().withDrop("ALL").endCapabilities().build(),
      List.of());

  public WorkerPodDefaults {
    nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
    tolerations = tolerations == null ? List.of() : List.copyOf(tolerations);
    imagePullSecrets = imagePullSecrets == null ? List.of() : List.copyOf(imagePullSecrets);
  }

  /** The resources of a resource's worker pods: its own when it sets them, else the admin's default. */
  public ResourceRequirements resourcesOr(ResourceRequirements own) {
    return own != null ? own : resources;
  }
}
