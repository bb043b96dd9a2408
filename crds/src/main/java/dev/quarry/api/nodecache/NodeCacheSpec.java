package dev.quarry.api.nodecache;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.DocumentedSchema;
import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.common.Patterns;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/** Dataset images mounted on selected nodes, the hottest copied to node-local disk and switched over live. */
@JsonClassDescription("Which images to mount on which nodes, and how the node-local cache behaves.")
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "self.images.all(i, self.images.exists_one(j, j.name == i.name))",
    message = "image names must be unique")
@ValidationRule(
    value = "!self.images.exists(i, i.source.startsWith('s3://')) || has(self.store)",
    message = "images with an s3:// source need spec.store")
@ValidationRule(
    value = "self.images.all(i, !i.source.startsWith('s3://') || has(i.checksum))",
    message = "images with an s3:// source need a checksum")
@ValidationRule(
    value = "!has(self.mountRoot) || !has(self.cache.directory) || !(self.mountRoot == self.cache.directory"
        + " || self.mountRoot.startsWith(self.cache.directory + '/')"
        + " || self.cache.directory.startsWith(self.mountRoot + '/'))",
    message = "mountRoot and cache.directory must not be one inside the other")
@ValidationRule(value = "!has(self.mountRoot) || self.mountRoot" + Patterns.MATCHES_NORMALIZED_ABSOLUTE_PATH,
    fieldPath = ".mountRoot", message = "mountRoot" + Patterns.NORMALIZED_ABSOLUTE_PATH_MESSAGE)
// The agents' records of what they mounted and copied live under these paths: a NodeCache keeps them for life.
@ValidationRule(value = "self.mountRoot == oldSelf.mountRoot", fieldPath = ".mountRoot",
    message = "mountRoot cannot be changed: delete the NodeCache (its agents unmount its images) and create it again")
@ValidationRule(value = "self.cache.directory == oldSelf.cache.directory", fieldPath = ".cache.directory",
    message = "cache.directory cannot be changed: delete the NodeCache (its agents remove its copies) and create it"
        + " again")
public record NodeCacheSpec(
    @JsonPropertyDescription("Labels a node must have to run the agent; every node when empty.")
        Map<String, String> nodeSelector,
    @JsonPropertyDescription("Tolerations of the agent pods, for example to reach tainted GPU nodes.")
        @SchemaFrom(type = DocumentedSchema.Toleration[].class)
        List<Toleration> tolerations,
    @JsonPropertyDescription("Directory on each node under which every image is mounted at <mountRoot>/<name>. It"
            + " must lie under one of the mount roots the cluster admin allows (chart value"
            + " nodeCache.mountRoots, default /mnt/quarry).")
        @Default("/mnt/quarry")
        @Size(max = 1024)
        String mountRoot,
    @JsonPropertyDescription("The node-local cache.") @Required CacheStorage cache,
    @JsonPropertyDescription("The images.") @Required @Size(max = 500) List<CacheImage> images,
    @JsonPropertyDescription("How the agents decide what to cache.") CachePolicy policy,
    @JsonPropertyDescription("The object store of images with an s3:// source.") ObjectStore store) {}
