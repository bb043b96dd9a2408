package dev.quarry.operator.status;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import java.lang.reflect.InvocationTargetException;
import java.util.Objects;

/**
 * The only place that writes a resource's status. It sends a fresh object holding only name, namespace and status by
 * server-side apply (no resourceVersion, so concurrent spec edits never make it conflict), and only when the status
 * differs from what the resource already has. Stateless.
 */
public final class StatusWriter {
  public static final String FIELD_MANAGER = "quarry-operator";

  /**
   * Writes {@code status} to {@code resource} unless it already has it; returns whether it wrote. The written
   * resource goes into the controller's cache, so the next reconcile sees this status even if the watch event has
   * not arrived yet (a stale status would make the reconciler redo a step it has already moved past).
   */
  public <S, R extends CustomResource<?, S>> boolean write(R resource, S status, Context<R> context) {
    if (Objects.equals(resource.getStatus(), status)) {
      return false;
    }
    R fresh = freshOf(resource);
    fresh.setStatus(status);
    PrimaryUpdateAndCacheUtils.ssaPatchStatusAndCacheResource(resource, fresh, context);
    resource.setStatus(status);
    return true;
  }

  @SuppressWarnings("unchecked")
  private static <R extends CustomResource<?, ?>> R freshOf(R resource) {
    try {
      R fresh = (R) resource.getClass().getDeclaredConstructor().newInstance();
      fresh.setMetadata(new ObjectMetaBuilder().withName(resource.getMetadata().getName())
          .withNamespace(resource.getMetadata().getNamespace()).build());
      return fresh;
    } catch (InstantiationException | IllegalAccessException | NoSuchMethodException
        | InvocationTargetException e) {
      throw new IllegalStateException("Cannot write the status of " + resource.getKind() + ": its class has no"
          + " public no-argument constructor", e);
    }
  }
}
