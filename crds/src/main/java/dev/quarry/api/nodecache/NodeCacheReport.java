package dev.quarry.api.nodecache;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import dev.quarry.api.common.QuarryApi;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * What one node's agent does for one NodeCache (cluster-scoped, named {@code <nodecache>.<node>}). Each agent owns its
 * own reports, so a thousand agents never write the same object; the operator only reads them to summarize.
 */
@JsonClassDescription("One node agent's report on one NodeCache, named <nodecache>.<node> and written by the "
    + "agent only. Ready is True when every image is mounted on that node.")
@Group(QuarryApi.GROUP)
@Version(QuarryApi.VERSION)
@Kind("NodeCacheReport")
@Plural("nodecachereports")
@Singular("nodecachereport")
@ShortNames("ncr")
@AdditionalPrinterColumn(name = "Node", jsonPath = ".spec.node", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Mounted", jsonPath = ".status.mounted", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Cached", jsonPath = ".status.cached", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Used", jsonPath = ".status.cacheUsed", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Hit", jsonPath = ".status.hitRatio", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Ready", jsonPath = QuarryApi.READY_CONDITION + ".status",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Reason", jsonPath = QuarryApi.READY_CONDITION + ".reason",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Message", jsonPath = QuarryApi.READY_CONDITION + ".message",
    type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class NodeCacheReport extends CustomResource<NodeCacheReportSpec, NodeCacheReportStatus> {
  /** Label carrying the NodeCache a report belongs to, for listing one cache's reports. */
  public static final String NODE_CACHE_LABEL = QuarryApi.GROUP + "/nodecache";
  /** Label carrying the node a report comes from. */
  public static final String NODE_LABEL = QuarryApi.GROUP + "/node";

  /** The report name of {@code nodeCache} on {@code node}. */
  public static String nameOf(String nodeCache, String node) {
    return nodeCache + "." + node;
  }
}
