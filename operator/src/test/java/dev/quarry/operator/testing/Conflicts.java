package dev.quarry.operator.testing;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.function.Supplier;

/** Edits of resources the running operator writes too. */
public final class Conflicts {
  private static final int ATTEMPTS = 10;

  private Conflicts() {}

  /**
   * Runs {@code edit} (a read, a change, and a patch locked to the version read) again while the API server refuses
   * it with 409 Conflict: the operator wrote the resource (its finalizer, its status) between the read and the patch.
   * Any other refusal is thrown at once.
   */
  public static <T> T retried(Supplier<T> edit) {
    for (int attempt = 1; ; attempt++) {
      try {
        return edit.get();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
