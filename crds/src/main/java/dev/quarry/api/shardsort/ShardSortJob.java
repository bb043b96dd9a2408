package dev.quarry.api.shardsort;

import dev.quarry.api.common.QuarryApi;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/** Sorts or shuffles a dataset of archive shards in object storage across all its shards, and reshards it. */
@Group(QuarryApi.GROUP)
@Version(QuarryApi.VERSION)
@Kind("ShardSortJob")
@Plural("shardsortjobs")
@Singular("shardsortjob")
@ShortNames("ssj")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Progress", jsonPath = ".status.progress", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Records", jsonPath = ".status.records", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Shards", jsonPath = ".status.shards", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class ShardSortJob extends CustomResource<ShardSortJobSpec, ShardSortJobStatus> implements Namespaced {}
