package dev.quarry.api.shardsort;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.common.Patterns;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** Sort or shuffle a dataset of archive shards across all its shards, and reshard it. */
@JsonClassDescription("What to sort and where to write it. Only abort can be changed once the job exists.")
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.output.template)",
    message = "output.template is required (with a keymap order, its folder is the output location the key map's"
        + " templates must stay in)")
// A shard is written in the format its name ends in; a format that says otherwise would put one under another's name.
// With a keymap order the template gives only the folder, and the key map's lines are checked when the job reads them.
@ValidationRule(
    value = "self.order.kind == 'keymap' || !has(self.output.format) || !has(self.output.template)"
        + " || !self.output.template.lowerAscii().matches('\\\\.(tar|tar\\\\.gz|tgz|tar\\\\.lz4|zip|msgpack)$')"
        + " || self.output.template.lowerAscii().endsWith('.' + self.output.format)"
        + " || (self.output.format == 'tar.gz' && self.output.template.lowerAscii().endsWith('.tgz'))",
    message = "output.format must be the format output.template's names end in (or leave it out: the names decide)")
// sort clean deletes under scratch: it may be neither the data's folder, nor above it, nor below it (but for the
// reserved .quarry-scratch/ folder below a template's folder, which no template names). Input objects are checked
// when the job runs: a list of 100000 URLs is beyond what a rule may cost.
@ValidationRule(
    value = "!has(self.scratch) || [self.scratch.endsWith('/') ? self.scratch : self.scratch +"
            + " '/'].all(s, (!has(self.input.prefix) || !(self.input.prefix.startsWith(s) ||"
            + " s.startsWith(self.input.prefix))) && (!has(self.input.template) ||"
            + " [self.input.template.substring(0, self.input.template.substring(0,"
            + " self.input.template.indexOf('{')).lastIndexOf('/') + 1)].all(l, !(l.startsWith(s) ||"
            + " (s.startsWith(l) && !s.substring(l.size()).startsWith('.quarry-scratch/'))))))",
    message = "scratch must not be equal to, above or below the input location (sort clean deletes scratch; use a"
        + " folder of its own, such as .quarry-scratch/<name>/ in the output bucket)")
@ValidationRule(
    value = "!has(self.scratch) || !has(self.output.template) || [self.scratch.endsWith('/') ?"
            + " self.scratch : self.scratch + '/'].all(s, [self.output.template.substring(0,"
            + " self.output.template.substring(0, self.output.template.indexOf('{')).lastIndexOf('/') +"
            + " 1)].all(l, !(l.startsWith(s) || (s.startsWith(l) &&"
            + " !s.substring(l.size()).startsWith('.quarry-scratch/')))))",
    message = "scratch must not be equal to, above or below the output location (sort clean deletes scratch; use a"
        + " folder of its own, such as .quarry-scratch/<name>/ in the output bucket)")
// Every step's Job and the cleanup read the store afresh: a store changed mid-run would send the workers and their
// credentials to an endpoint that was never checked.
@ValidationRule(value = "self.store == oldSelf.store", fieldPath = ".store",
    message = "store cannot be changed once the job exists: its workers and its cleanup use it; create a new"
        + " ShardSortJob")
// The workers read the spec the job started with (an immutable ConfigMap): any other change would be ignored, or
// would mix two specs' shards in one output.
@ValidationRule(
    value = "self.input == oldSelf.input && self.output == oldSelf.output && self.order == oldSelf.order"
        + " && has(self.policies) == has(oldSelf.policies)"
        + " && (!has(self.policies) || self.policies == oldSelf.policies)"
        + " && has(self.workers) == has(oldSelf.workers) && (!has(self.workers) || self.workers == oldSelf.workers)"
        + " && has(self.scratch) == has(oldSelf.scratch) && (!has(self.scratch) || self.scratch == oldSelf.scratch)"
        + " && has(self.dryRun) == has(oldSelf.dryRun) && (!has(self.dryRun) || self.dryRun == oldSelf.dryRun)"
        + " && has(self.overwrite) == has(oldSelf.overwrite)"
        + " && (!has(self.overwrite) || self.overwrite == oldSelf.overwrite)",
    message = "only spec.abort can be changed once the job exists: the job runs the spec it was created with; to run"
        + " another, delete this ShardSortJob and create it again")
public record ShardSortJobSpec(
    @JsonPropertyDescription("The object store holding the input, the output and the scratch data.")
        @Required
        ObjectStore store,
    @JsonPropertyDescription("The input shards.") @Required ShardInput input,
    @JsonPropertyDescription("The output shards.") @Required ShardOutput output,
    @JsonPropertyDescription("The order of records across the output.") @Required ShardOrder order,
    @JsonPropertyDescription("What to do with problems in the input.") ShardSortPolicies policies,
    @JsonPropertyDescription("The worker pods: how many, their memory, resources and placement. Their security"
            + " contexts are the cluster admin's alone (chart values worker.podSecurityContext and"
            + " worker.securityContext): no resource can change them.")
        ShardSortWorkers workers,
    @JsonPropertyDescription("Prefix for intermediate data, removed when the job ends (only what the sort wrote there,"
            + " under its .quarry-scratch.json marker). Defaults to .quarry-scratch/<namespace>/<name>/ in the"
            + " output bucket. Must not be equal to, above or below the input or output location.")
        @Pattern(Patterns.S3_URL)
        @Size(max = 2048)
        String scratch,
    @JsonPropertyDescription("Plan the output and report it in the status, without writing any shard.")
        @Default("false")
        Boolean dryRun,
    @JsonPropertyDescription("Replace the committed output of an earlier run at the output location: its manifest"
            + " and WebDataset index are deleted first, then its shards (only those its manifest names), before the"
            + " new shards are written. Without it, a job whose output template already has a manifest is refused."
            + " An unfinished run of the same spec (no manifest, a pending record) is replaced without it.")
        @Default("false")
        Boolean overwrite,
    @JsonPropertyDescription("Set to true to stop the job: running workers are deleted, scratch data is removed,"
            + " shards already written are kept but no manifest is committed.")
        @Default("false")
        Boolean abort) {}
