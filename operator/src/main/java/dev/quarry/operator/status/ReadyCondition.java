package dev.quarry.operator.status;

import dev.quarry.api.common.Conditions;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Builds a status's conditions. A condition keeps its lastTransitionTime while its status stays the same, so that
 * "since when" stays true and an unchanged status compares equal and is not written again.
 */
public final class ReadyCondition {
  private final Clock clock;

  public ReadyCondition(Clock clock) {
    this.clock = clock;
  }

  /** {@code previous} with the condition of {@code type} replaced (or added); Ready is always first. */
  public List<Condition> set(List<Condition> previous, String type, boolean status, String reason, String message,
      Long generation) {
    List<Condition> result = new ArrayList<>(previous == null ? List.of() : previous);
    Condition old = result.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
    String statusText = status ? "True" : "False";
    String since = old != null && statusText.equals(old.getStatus()) && old.getLastTransitionTime() != null
        ? old.getLastTransitionTime() : now();
    Condition condition = new ConditionBuilder().withType(type).withStatus(statusText).withReason(reason)
        .withMessage(message).withObservedGeneration(generation).withLastTransitionTime(since).build();
    if (old != null) {
      result.set(result.indexOf(old), condition);
    } else if (Conditions.READY.equals(type)) {
      result.add(0, condition);
    } else {
      result.add(condition);
    }
    return List.copyOf(result);
  }

  /** Shortcut for the Ready condition. */
  public List<Condition> ready(List<Condition> previous, boolean status, String reason, String message,
      Long generation) {
    return set(previous, Conditions.READY, status, reason, message, generation);
  }

  /** The condition of {@code type}, or null. */
  public static Condition find(List<Condition> conditions, String type) {
    return conditions == null ? null
        : conditions.stream().filter(c -> Objects.equals(type, c.getType())).findFirst().orElse(null);
  }

  /** Whether the condition of {@code type} is there with status True. */
  public static boolean isTrue(List<Condition> conditions, String type) {
    Condition condition = find(conditions, type);
    return condition != null && "True".equals(condition.getStatus());
  }

  /** Now in RFC 3339 at second precision, as Kubernetes writes times. */
  public String now() {
    return Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
