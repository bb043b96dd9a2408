package dev.quarry.operator.status;

import dev.quarry.operator.jobs.ChildNames;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records Kubernetes events on a resource (shown by {@code kubectl describe}). An event's name is derived from the
 * resource, the reason and the message, so reconciling the same situation again records nothing new.
 */
public final class EventRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);
  /** Events of cluster-scoped resources (NodeCache) go to this namespace, as kubectl expects. */
  private static final String CLUSTER_EVENTS_NAMESPACE = "default";
  static final int MAX_MESSAGE = 1024;

  private final KubernetesClient client;
  private final Clock clock;

  public EventRecorder(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  public void normal(HasMetadata resource, String reason, String message) {
    record(resource, "Normal", reason, message);
  }

  public void warning(HasMetadata resource, String reason, String message) {
    record(resource, "Warning", reason, message);
  }

  /** A message as an event carries it: at most {@link #MAX_MESSAGE} chars. */
  static String boundedMessage(String message) {
    return CutText.toLength(message, MAX_MESSAGE, "...");
  }

  private void record(HasMetadata resource, String type, String reason, String message) {
    String namespace = resource.getMetadata().getNamespace() != null ? resource.getMetadata().getNamespace()
        : CLUSTER_EVENTS_NAMESPACE;
    String text = boundedMessage(message);
    String name = resource.getMetadata().getName() + "." + ChildNames.hash(
        resource.getMetadata().getUid() + "/" + reason + "/" + text);
    String now = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
    try {
      client.v1().events().inNamespace(namespace).resource(new EventBuilder()
          .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
          .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion(resource.getApiVersion())
              .withKind(resource.getKind()).withName(resource.getMetadata().getName())
              .withNamespace(resource.getMetadata().getNamespace()).withUid(resource.getMetadata().getUid())
              .build())
          .withType(type).withReason(reason).withMessage(text).withCount(1)
          .withFirstTimestamp(now).withLastTimestamp(now)
          .withNewSource().withComponent("quarry-operator").endSource()
          .build()).create();
      LOG.info("event kind={} name={} type={} reason={} message=\"{}\"", resource.getKind(),
          resource.getMetadata().getName(), type, reason, text);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        // An event is a courtesy: failing to record one must not fail the reconcile.
        LOG.warn("event-failed kind={} name={} reason={} error=\"{}\"", resource.getKind(),
            resource.getMetadata().getName(), reason, e.getMessage());
      }
    }
  }
}
