package dev.quarry.api.nodecache;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import dev.quarry.api.common.QuarryApi;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/** Mounts dataset images on selected nodes and keeps the hottest ones on local disk (cluster-scoped). */
@JsonClassDescription("Mounts dataset images on the selected nodes and keeps the hottest on node-local disk. "
    + "Ready is True when the agent of every selected node mounts every image of the current generation.")
@Group(QuarryApi.GROUP)
@Version(QuarryApi.VERSION)
@Kind("NodeCache")
@Plural("nodecaches")
@Singular("nodecache")
@Categories(QuarryApi.CATEGORY)
@ShortNames("nc")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Nodes", jsonPath = ".status.nodes", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Copies", jsonPath = ".status.cachedCopies", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Hit", jsonPath = ".status.hitRatio", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Ready", jsonPath = QuarryApi.READY_CONDITION + ".status",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Reason", jsonPath = QuarryApi.READY_CONDITION + ".reason",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Message", jsonPath = QuarryApi.READY_CONDITION + ".message",
    type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class NodeCache extends CustomResource<NodeCacheSpec, NodeCacheStatus> {
  /**
   * Whether the operator accepted this very spec ({@code status.acceptedGeneration} is its generation): the only
   * spec the agents act on, and the only one that holds its paths against other NodeCaches.
   */
  public boolean specAccepted() {
    return getStatus() != null && getStatus().acceptedGeneration() != null
        && getStatus().acceptedGeneration().equals(getMetadata().getGeneration());
  }

  /** Whether the operator accepted some spec of this NodeCache, this one or an earlier one. */
  public boolean everAccepted() {
    return getStatus() != null && getStatus().acceptedGeneration() != null;
  }
}
