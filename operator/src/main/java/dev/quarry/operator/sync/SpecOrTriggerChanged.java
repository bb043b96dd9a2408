package dev.quarry.operator.sync;

import dev.quarry.api.datasetsync.DatasetSync;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import java.util.Map;
import java.util.Objects;

/**
 * Which updates of a DatasetSync start a reconcile: a new generation, or a new value of the trigger annotation (which
 * does not change the generation). Status writes, including the operator's own, do not.
 */
public final class SpecOrTriggerChanged implements OnUpdateFilter<DatasetSync> {
  @Override
  public boolean accept(DatasetSync newResource, DatasetSync oldResource) {
    return !Objects.equals(newResource.getMetadata().getGeneration(), oldResource.getMetadata().getGeneration())
        || !Objects.equals(trigger(newResource), trigger(oldResource))
        || !Objects.equals(newResource.getMetadata().getDeletionTimestamp(),
            oldResource.getMetadata().getDeletionTimestamp());
  }

  private static String trigger(DatasetSync sync) {
    Map<String, String> annotations = sync.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(DatasetSync.TRIGGER_ANNOTATION);
  }
}
