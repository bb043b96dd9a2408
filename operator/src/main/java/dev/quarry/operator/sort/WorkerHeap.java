package dev.quarry.operator.sort;

import dev.quarry.core.memory.MemoryLimit;
import dev.quarry.core.sort.MemoryBudget;
import dev.quarry.core.units.ByteSize;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.Optional;

/**
 * The heap of a sort worker's JVM, worked out here by the worker's own rule (core's {@link MemoryBudget}: the spec's
 * budget, else the default of the container's memory limit) and passed in {@value #VARIABLE}, so that the image's
 * entrypoint starts no small JVM to work it out before each command (worker-image/memory-options.sh). None where the
 * rule cannot be followed here, and the entrypoint then works it out as before: a pod without a memory limit (its
 * limit is its node's memory), a budget or limit the worker refuses (it says what is wrong itself).
 */
final class WorkerHeap {
  /** The variable the worker image's entrypoint takes a sort's heap from, as -Xmx takes it. */
  static final String VARIABLE = "QUARRY_SORT_HEAP";

  private WorkerHeap() {}

  /** The variable for a phase command (which holds no record bytes outside its heap) of a pod with {@code resources}. */
  static Optional<EnvVar> of(String memoryBudget, ResourceRequirements resources) {
    try {
      Optional<MemoryBudget> budget = memoryBudget != null
          ? Optional.of(new MemoryBudget(ByteSize.parse(memoryBudget)))
          : memoryLimit(resources).map(MemoryBudget::defaultFor);
      return budget.map(rule -> new EnvVar(VARIABLE, rule.heapSize(false), null));
    } catch (IllegalArgumentException refused) {
      return Optional.empty();
    }
  }

  private static Optional<MemoryLimit> memoryLimit(ResourceRequirements resources) {
    if (resources == null || resources.getLimits() == null || resources.getLimits().get("memory") == null) {
      return Optional.empty();
    }
    long bytes = Quantity.getAmountInBytes(resources.getLimits().get("memory")).longValue();
    return Optional.of(new MemoryLimit(bytes, "resources.limits.memory"));
  }
}
