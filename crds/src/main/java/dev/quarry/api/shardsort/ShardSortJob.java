package dev.quarry.api.shardsort;

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

/** Sorts or shuffles a dataset of archive shards in object storage across all its shards, and reshards it. */
@JsonClassDescription("Sorts or shuffles a dataset of archive shards in object storage across all its shards and "
    + "writes it as new shards. Ready is True once the output is committed.")
@Group(QuarryApi.GROUP)
@Version(QuarryApi.VERSION)
@Kind("ShardSortJob")
@Plural("shardsortjobs")
@Singular("shardsortjob")
@Categories(QuarryApi.CATEGORY)
@ShortNames("ssj")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Progress", jsonPath = ".status.progress", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Records", jsonPath = ".status.records", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Shards", jsonPath = ".status.shards", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Ready", jsonPath = QuarryApi.READY_CONDITION + ".status",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Reason", jsonPath = QuarryApi.READY_CONDITION + ".reason",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Message", jsonPath = QuarryApi.READY_CONDITION + ".message",
    type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class ShardSortJob extends CustomResource<ShardSortJobSpec, ShardSortJobStatus> implements Namespaced {}
