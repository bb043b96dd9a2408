package dev.quarry.api.common;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;

/**
 * The schemas the CRDs give the Kubernetes types our kinds embed (conditions, tolerations, resources), with a
 * description on every field. The Java code keeps using Kubernetes' own classes, whose generated schemas describe
 * nothing; each embedding field names its schema here with {@code @SchemaFrom}.
 */
public final class DocumentedSchema {
  private DocumentedSchema() {}

  /** The status of a condition, as Kubernetes defines it. */
  public enum ConditionStatus {
    True,
    False,
    Unknown
  }

  /**
   * A condition, as in Kubernetes' metav1.Condition. The CRD generation makes {@code status.conditions} a list map
   * keyed by {@code type}, so that each type appears once.
   */
  public record Condition(
      @JsonPropertyDescription("The kind of condition, in CamelCase: Ready on every kind, or one a kind adds"
              + " (ScratchRemoved).")
          @Required
          String type,
      @JsonPropertyDescription("True, False or Unknown.") @Required ConditionStatus status,
      @JsonPropertyDescription("Why the condition has this status, as one CamelCase word a program can test.")
          String reason,
      @JsonPropertyDescription("What happened and, when something is wrong, what to do about it.") String message,
      @JsonPropertyDescription("When the status last changed (RFC 3339).") String lastTransitionTime,
      @JsonPropertyDescription("The generation of the spec the condition describes; kubectl wait ignores a"
              + " condition of an older generation.")
          @Min(0)
          Long observedGeneration) {}

  /** A toleration of a pod, as in Kubernetes' core/v1 Toleration. */
  public record Toleration(
      @JsonPropertyDescription("The taint key the toleration matches; empty, with operator Exists, matches every"
              + " taint.")
          String key,
      @JsonPropertyDescription("Equal (the default: the taint's value must be value) or Exists (any value).")
          String operator,
      @JsonPropertyDescription("The taint value the toleration matches, with operator Equal.") String value,
      @JsonPropertyDescription("The taint effect matched: NoSchedule, PreferNoSchedule or NoExecute; empty"
              + " matches every effect.")
          String effect,
      @JsonPropertyDescription("With effect NoExecute, how many seconds the pod stays on the node once the taint"
              + " appears; unset means for ever.")
          Long tolerationSeconds) {}

  /** The compute resources of a container, as in Kubernetes' core/v1 ResourceRequirements. */
  public record Resources(
      @JsonPropertyDescription("The most of each resource (cpu, memory, ...) the container may use, as"
              + " quantities by resource name.")
          Map<String, Quantity> limits,
      @JsonPropertyDescription("What the scheduler reserves of each resource (cpu, memory, ...) for the"
              + " container, as quantities by resource name.")
          Map<String, Quantity> requests,
      @JsonPropertyDescription("Dynamically allocated resources the container uses, named in the pod's"
              + " resourceClaims.")
          List<ResourceClaim> claims) {}

  /** A dynamically allocated resource a container uses, as in Kubernetes' core/v1 ResourceClaim. */
  public record ResourceClaim(
      @JsonPropertyDescription("The name of an entry of the pod's resourceClaims.") @Required String name,
      @JsonPropertyDescription("The request of that claim to use, for a claim with several.") String request) {}
}
