package dev.quarry.operator.jobs;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;

/** Owner references from the objects the operator creates to the resource they serve. */
public final class Ownership {
  private Ownership() {}

  /** A controller reference: the child is deleted with its owner, and kubectl shows who made it. */
  public static OwnerReference controllerOf(HasMetadata owner) {
    return new OwnerReferenceBuilder().withApiVersion(owner.getApiVersion()).withKind(owner.getKind())
        .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid()).withController(true)
        .withBlockOwnerDeletion(true).build();
  }
}
