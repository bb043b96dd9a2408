package dev.quarry.operator.jobs;

import dev.quarry.api.common.WorkerPlacement;
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
 * (nodeSelector, tolerations, affinity, priority class), their security contexts, their default resources, and the
 * Secrets their image is pulled with. Null or empty fields leave the pod's field unset. A resource may replace the
 * resources and the placement ({@link #forResource}), never the security contexts: they stay the admin's whatever a
 * namespace's user writes.
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

  /**
   * The defaults of one resource's worker pods: each of its resources and placement fields that it sets (non-null,
   * non-empty) replaces the admin's as a whole; {@code placement} may be null.
   */
  public WorkerPodDefaults forResource(ResourceRequirements ownResources, WorkerPlacement placement) {
    if (placement == null) {
      return new WorkerPodDefaults(or(ownResources, resources), nodeSelector, tolerations, affinity, priorityClassName,
          podSecurityContext, securityContext, imagePullSecrets);
    }
    return new WorkerPodDefaults(or(ownResources, resources),
        placement.nodeSelector() == null || placement.nodeSelector().isEmpty() ? nodeSelector
            : placement.nodeSelector(),
        placement.tolerations() == null || placement.tolerations().isEmpty() ? tolerations : placement.tolerations(),
        or(placement.affinity(), affinity), or(placement.priorityClassName(), priorityClassName),
        podSecurityContext, securityContext, imagePullSecrets);
  }

  private static <T> T or(T own, T fallback) {
    return own != null ? own : fallback;
  }
}
