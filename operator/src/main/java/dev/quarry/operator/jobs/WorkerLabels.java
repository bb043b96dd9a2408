package dev.quarry.operator.jobs;

import dev.quarry.api.common.QuarryApi;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The labels on every object the operator creates. Pods made by the Job controller carry their Job's owner reference,
 * not the resource's, so the resource's name is a label and events on pods map back to it through that label.
 */
public final class WorkerLabels {
  /** Marks objects this operator manages; informers watch only these. */
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  public static final String MANAGER = "quarry-operator";
  /** The component: worker, scratch-cleaner, agent. */
  public static final String COMPONENT = "app.kubernetes.io/component";
  /** What the pod does: extract, plan, create, commit, clean, or a sync operation. */
  public static final String ROLE = QuarryApi.GROUP + "/role";
  /** The selector every informer of worker objects uses. */
  public static final String SELECTOR = MANAGED_BY + "=" + MANAGER;

  private WorkerLabels() {}

  /** The labels of a child of {@code owner}, whose kind label is {@code ownerLabel}. */
  public static Map<String, String> of(String ownerLabel, HasMetadata owner, String component, String role) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(MANAGED_BY, MANAGER);
    labels.put(COMPONENT, component);
    labels.put(ownerLabel, owner.getMetadata().getName());
    labels.put(ROLE, role);
    return labels;
  }

  /** Maps a child to the resource named by its {@code ownerLabel}, in the child's namespace. */
  public static <R extends HasMetadata> SecondaryToPrimaryMapper<R> toOwner(String ownerLabel) {
    return child -> {
      Map<String, String> labels = child.getMetadata().getLabels();
      String owner = labels == null ? null : labels.get(ownerLabel);
      return owner == null ? Set.of() : Set.of(new ResourceID(owner, child.getMetadata().getNamespace()));
    };
  }

  /** Maps a child to the cluster-scoped resource named by its {@code ownerLabel}. */
  public static <R extends HasMetadata> SecondaryToPrimaryMapper<R> toClusterOwner(String ownerLabel) {
    return child -> {
      Map<String, String> labels = child.getMetadata().getLabels();
      String owner = labels == null ? null : labels.get(ownerLabel);
      return owner == null ? Set.of() : Set.of(new ResourceID(owner));
    };
  }
}
