package dev.quarry.api.datasetsync;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.DocumentedSchema;
import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.common.Patterns;
import dev.quarry.api.common.WorkerPlacement;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/** Version a directory on a volume into a content-addressed store in S3. */
@JsonClassDescription("Which folder of which volume to version into which store, the operation to run on it, and"
    + " the worker pod's resources and placement. The worker's security contexts are the cluster admin's alone (chart"
    + " values worker.podSecurityContext and worker.securityContext): no resource can change them.")
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.pull) || self.operation == 'Pull'", message = "pull is only allowed with operation Pull")
@ValidationRule(value = "!has(self.gc) || self.operation == 'Gc'", message = "gc is only allowed with operation Gc")
public record DatasetSyncSpec(
    @JsonPropertyDescription("The directory being versioned.") @Required VolumeSource volume,
    @JsonPropertyDescription("Root of the content-addressed store, for example s3://datasets/cas/imagenet.")
        @Required
        @Pattern(Patterns.S3_URL)
        String remote,
    @JsonPropertyDescription("The object store holding the remote.") @Required ObjectStore store,
    @JsonPropertyDescription("Status, Push, Pull or Gc.") @Required SyncOperation operation,
    @JsonPropertyDescription("The ref that Push writes and that Status and Pull compare with or read.")
        @Default("latest")
        @Pattern(Patterns.REF_NAME)
        String ref,
    @JsonPropertyDescription("Options of Pull.") PullOptions pull,
    @JsonPropertyDescription("Options of Gc.") GcOptions gc,
    @JsonPropertyDescription("Object store requests kept in flight.")
        @Default("64")
        @Min(1)
        @Max(4096)
        Integer requestsInFlight,
    @JsonPropertyDescription("CPU and memory requests and limits of the worker pod.")
        @SchemaFrom(type = DocumentedSchema.Resources.class)
        ResourceRequirements resources,
    @JsonPropertyDescription(WorkerPlacement.NODE_SELECTOR) Map<String, String> nodeSelector,
    @JsonPropertyDescription(WorkerPlacement.TOLERATIONS)
        @SchemaFrom(type = DocumentedSchema.Toleration[].class)
        List<Toleration> tolerations,
    @JsonPropertyDescription(WorkerPlacement.AFFINITY)
        @SchemaFrom(type = DocumentedSchema.Affinity.class)
        Affinity affinity,
    @JsonPropertyDescription(WorkerPlacement.PRIORITY_CLASS_NAME)
        @Pattern(Patterns.DNS_SUBDOMAIN)
        @Size(max = 253)
        String priorityClassName) implements WorkerPlacement {}
