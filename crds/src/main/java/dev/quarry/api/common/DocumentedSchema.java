package dev.quarry.api.common;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;

/**
 * The schemas the CRDs give the Kubernetes types our kinds embed (conditions, tolerations, affinity, resources), with a
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

  /** The affinity of a pod, as in Kubernetes' core/v1 Affinity. */
  public record Affinity(
      @JsonPropertyDescription("Which nodes the pod may, or prefers to, run on, by node labels and fields.")
          NodeAffinity nodeAffinity,
      @JsonPropertyDescription("Pods this pod must, or prefers to, run near (in the same topology domain).")
          PodAffinity podAffinity,
      @JsonPropertyDescription("Pods this pod must not, or prefers not to, run near (in the same topology"
              + " domain).")
          PodAffinity podAntiAffinity) {}

  /** Node affinity, as in Kubernetes' core/v1 NodeAffinity. */
  public record NodeAffinity(
      @JsonPropertyDescription("Nodes the pod must run on: those matching one of the terms. Not applied again"
              + " to a running pod.")
          NodeSelector requiredDuringSchedulingIgnoredDuringExecution,
      @JsonPropertyDescription("Nodes the pod prefers: each matching term adds its weight to a node's score.")
          List<PreferredSchedulingTerm> preferredDuringSchedulingIgnoredDuringExecution) {}

  /** Terms ORed together, as in Kubernetes' core/v1 NodeSelector. */
  public record NodeSelector(
      @JsonPropertyDescription("Node selector terms; a node matching any one of them matches.")
          @Required
          List<NodeSelectorTerm> nodeSelectorTerms) {}

  /** Requirements ANDed together, as in Kubernetes' core/v1 NodeSelectorTerm. */
  public record NodeSelectorTerm(
      @JsonPropertyDescription("Requirements on the node's labels, all of which must hold.")
          List<NodeSelectorRequirement> matchExpressions,
      @JsonPropertyDescription("Requirements on the node's fields (metadata.name), all of which must hold.")
          List<NodeSelectorRequirement> matchFields) {}

  /** One requirement on a node label or field, as in Kubernetes' core/v1 NodeSelectorRequirement. */
  public record NodeSelectorRequirement(
      @JsonPropertyDescription("The label key or field name the requirement is about.") @Required String key,
      @JsonPropertyDescription("In, NotIn, Exists, DoesNotExist, Gt or Lt.") @Required String operator,
      @JsonPropertyDescription("The values for In and NotIn, one integer for Gt and Lt, none for Exists and"
              + " DoesNotExist.")
          List<String> values) {}

  /** A weighted node preference, as in Kubernetes' core/v1 PreferredSchedulingTerm. */
  public record PreferredSchedulingTerm(
      @JsonPropertyDescription("How much a node matching the preference adds to its score, 1 to 100.")
          @Required
          @Min(1)
          @Max(100)
          Integer weight,
      @JsonPropertyDescription("The nodes preferred.") @Required NodeSelectorTerm preference) {}

  /** Pod affinity or anti-affinity, as in Kubernetes' core/v1 PodAffinity and PodAntiAffinity. */
  public record PodAffinity(
      @JsonPropertyDescription("Terms that must all hold when the pod is scheduled. Not applied again to a"
              + " running pod.")
          List<PodAffinityTerm> requiredDuringSchedulingIgnoredDuringExecution,
      @JsonPropertyDescription("Terms that add their weight to the score of each node where they hold.")
          List<WeightedPodAffinityTerm> preferredDuringSchedulingIgnoredDuringExecution) {}

  /** A weighted pod affinity term, as in Kubernetes' core/v1 WeightedPodAffinityTerm. */
  public record WeightedPodAffinityTerm(
      @JsonPropertyDescription("How much a node where the term holds adds to its score, 1 to 100.")
          @Required
          @Min(1)
          @Max(100)
          Integer weight,
      @JsonPropertyDescription("The term.") @Required PodAffinityTerm podAffinityTerm) {}

  /** Pods near which (or away from which) the pod runs, as in Kubernetes' core/v1 PodAffinityTerm. */
  public record PodAffinityTerm(
      @JsonPropertyDescription("The pods the term is about, by their labels.") LabelSelector labelSelector,
      @JsonPropertyDescription("The namespaces of those pods; with namespaceSelector unset and this empty, the"
              + " pod's own namespace.")
          List<String> namespaces,
      @JsonPropertyDescription("The namespaces of those pods, by the namespaces' labels; an empty selector"
              + " matches every namespace.")
          LabelSelector namespaceSelector,
      @JsonPropertyDescription("The node label whose value defines \"near\": nodes with the same value are in one"
              + " domain, for example kubernetes.io/hostname or topology.kubernetes.io/zone.")
          @Required
          String topologyKey,
      @JsonPropertyDescription("Label keys whose values, taken from the incoming pod, are added to labelSelector"
              + " as In requirements.")
          List<String> matchLabelKeys,
      @JsonPropertyDescription("Label keys whose values, taken from the incoming pod, are added to labelSelector"
              + " as NotIn requirements.")
          List<String> mismatchLabelKeys) {}

  /** A label query, as in Kubernetes' meta/v1 LabelSelector. */
  public record LabelSelector(
      @JsonPropertyDescription("Labels an object must have, with these values.") Map<String, String> matchLabels,
      @JsonPropertyDescription("Requirements on an object's labels, all of which must hold.")
          List<LabelSelectorRequirement> matchExpressions) {}

  /** One requirement on a label, as in Kubernetes' meta/v1 LabelSelectorRequirement. */
  public record LabelSelectorRequirement(
      @JsonPropertyDescription("The label key the requirement is about.") @Required String key,
      @JsonPropertyDescription("In, NotIn, Exists or DoesNotExist.") @Required String operator,
      @JsonPropertyDescription("The values for In and NotIn; none for Exists and DoesNotExist.")
          List<String> values) {}
}
