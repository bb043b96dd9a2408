package dev.quarry.operator.jobs;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Locale;

/** How a reconciler of worker Jobs watches them and creates them. */
public final class WorkerInformers {
  private WorkerInformers() {}

  /**
   * Informers of the Jobs and pods labelled with {@code ownerLabel}, each event mapped to the resource the label
   * names. Only objects this operator made are watched (the managed-by label).
   */
  public static <P extends HasMetadata> List<EventSource<?, P>> jobsAndPods(EventSourceContext<P> context,
      Class<P> primary, String ownerLabel) {
    String selector = WorkerLabels.SELECTOR + "," + ownerLabel;
    String prefix = primary.getSimpleName().toLowerCase(Locale.ROOT);
    return List.of(
        new InformerEventSource<>(InformerEventSourceConfiguration.from(Job.class, primary)
            .withName(prefix + "-jobs").withLabelSelector(selector)
            .withSecondaryToPrimaryMapper(WorkerLabels.toOwner(ownerLabel)).build(), context),
        new InformerEventSource<>(InformerEventSourceConfiguration.from(Pod.class, primary)
            .withName(prefix + "-pods").withLabelSelector(selector)
            .withSecondaryToPrimaryMapper(WorkerLabels.toOwner(ownerLabel)).build(), context));
  }

  /**
   * Creates {@code object} unless it exists. Names are derived from the resource, so an object that exists is the one
   * an earlier reconcile (maybe of another operator process) created.
   */
  public static void createIfAbsent(KubernetesClient client, HasMetadata object) {
    try {
      client.resource(object).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
  }
}
