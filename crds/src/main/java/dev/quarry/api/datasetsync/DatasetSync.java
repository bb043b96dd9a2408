package dev.quarry.api.datasetsync;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import dev.quarry.api.common.QuarryApi;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * Versions a directory on a volume into a content-addressed store in S3. Re-applying an unchanged spec does no
 * work; a new generation, or a new value of the {@value #TRIGGER_ANNOTATION} annotation, runs the operation again.
 */
@JsonClassDescription("Versions a folder on a PersistentVolumeClaim into a content-addressed store on S3: Status, "
    + "Push, Pull or Gc. Ready is True when the last run succeeded for the current generation.")
@Group(QuarryApi.GROUP)
@Version(QuarryApi.VERSION)
@Kind("DatasetSync")
@Plural("datasetsyncs")
@Singular("datasetsync")
@Categories(QuarryApi.CATEGORY)
@ShortNames("dss")
@AdditionalPrinterColumn(name = "Operation", jsonPath = ".spec.operation", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Files", jsonPath = ".status.files", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Bytes", jsonPath = ".status.bytes", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Version", jsonPath = ".status.version", type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Ready", jsonPath = QuarryApi.READY_CONDITION + ".status",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Reason", jsonPath = QuarryApi.READY_CONDITION + ".reason",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Message", jsonPath = QuarryApi.READY_CONDITION + ".message",
    type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class DatasetSync extends CustomResource<DatasetSyncSpec, DatasetSyncStatus> implements Namespaced {
  /** Set or change this annotation's value to run the operation again without changing the spec. */
  public static final String TRIGGER_ANNOTATION = "quarry.dev/trigger";
}
