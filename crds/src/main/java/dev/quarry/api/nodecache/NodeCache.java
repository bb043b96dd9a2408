package dev.quarry.api.nodecache;

import dev.quarry.api.common.QuarryApi;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/** Mounts dataset images on selected nodes and keeps the hottest ones on local disk (cluster-scoped). */
@Group(QuarryApi.GROUP)
@Version(QuarryApi.VERSION)
@Kind("NodeCache")
@Plural("nodecaches")
@Singular("nodecache")
@ShortNames("nc")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Nodes", jsonPath = ".status.nodes", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Copies", jsonPath = ".status.cachedCopies", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Hit", jsonPath = ".status.hitRatio", type = AdditionalPrinterColumn.Type.STRING)
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
