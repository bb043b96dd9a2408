package dev.quarry.cli.sort;

import dev.quarry.core.policy.Policy;
import dev.quarry.core.sort.spec.InvalidSpecException;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.S3Settings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The job, from a file ({@code --spec}: a ShardSortJob or its spec, in YAML or JSON; what the operator passes its
 * workers) or from options (what people type). Options given with {@code --spec} override the file's fields. A
 * refused value is named as the user gave it: by its option when an option gave it, else by its spec field.
 */
public final class SortSpecOptions {
  /** The option that sets each spec field; {@code --order} and its companions set the order's fields. */
  private static final Map<String, List<String>> OPTIONS = Map.ofEntries(
      Map.entry("input.template", List.of("--input")), Map.entry("input.prefix", List.of("--input")),
      Map.entry("input.objects", List.of("--input")), Map.entry("input.format", List.of("--input-format")),
      Map.entry("output.template", List.of("--output")), Map.entry("output.format", List.of("--output-format")),
      Map.entry("output.shardSize", List.of("--shard-size")),
      Map.entry("output.recordsPerShard", List.of("--records-per-shard")),
      Map.entry("output.shardCount", List.of("--shard-count")), Map.entry("order.kind", List.of("--order")),
      Map.entry("order.seed", List.of("--seed")), Map.entry("order.descending", List.of("--descending")),
      Map.entry("order.content", List.of("--content-member")),
      Map.entry("order.content.member", List.of("--content-member")),
      Map.entry("order.content.type", List.of("--content-type")),
      Map.entry("order.keymap", List.of("--keymap-file", "--keymap-object")),
      Map.entry("order.keymap.inline", List.of("--keymap-file")),
      Map.entry("order.keymap.object", List.of("--keymap-object")),
      Map.entry("order.keymap.separator", List.of("--keymap-separator")),
      Map.entry("policies.duplicatedRecords", List.of("--duplicated-records")),
      Map.entry("policies.missingShards", List.of("--missing-shards")),
      Map.entry("policies.keymapMalformedLine", List.of("--keymap-malformed-line")),
      Map.entry("policies.keymapMissingKey", List.of("--keymap-missing-key")),
      Map.entry("policies.contentKeyMissing", List.of("--content-key-missing")),
      Map.entry("workers.memoryBudget", List.of("--memory-budget")),
      Map.entry("workers.requestsInFlight", List.of("--requests-in-flight")),
      Map.entry("scratch", List.of("--scratch")), Map.entry("dryRun", List.of("--dry-run")));

  @Spec(Spec.Target.MIXEE) CommandSpec command;

  @Option(names = "--spec", paramLabel = "FILE", description = "The job: a ShardSortJob as kubectl applies it, or"
      + " its spec, in YAML or JSON (UTF-8, at most 1 MiB, each field once). Its store (endpoint, region,"
      + " pathStyle) wins over the environment's.")
  Path specFile;

  /** The --spec file, read once. */
  private SpecFile file;

  @Option(names = "--input", paramLabel = "URL", split = ",",
      description = "Input shards: a brace template (s3://b/train-{0000..0999}.tar), a prefix ending in '/', or"
          + " one or more URLs (repeat the option or separate with commas). Local paths and file:// work too.")
  List<String> input;

  @Option(names = "--input-format", paramLabel = "EXT", description = "Input format (default: from each name).")
  String inputFormat;

  @Option(names = "--output", paramLabel = "TEMPLATE",
      description = "Output shard names with a range, open-ended allowed: /out/shuffled-{000000..}.tar")
  String output;

  @Option(names = "--output-format", paramLabel = "EXT",
      description = "Output format: tar, tar.gz, tar.lz4, zip or msgpack (default: the one the"
          + " output names end in, else the input's).")
  String outputFormat;

  @Option(names = "--shard-size", paramLabel = "BYTES", description = "Target shard size, as a quantity (256Mi): a record goes to"
      + " the shard its start offset falls in (docs/formats.md, Output sizing).")
  String shardSize;

  @Option(names = "--records-per-shard", paramLabel = "N", description = "Exactly N records per shard.")
  Long recordsPerShard;

  @Option(names = "--shard-count", paramLabel = "N", description = "Exactly N shards of equal record counts.")
  Long shardCount;

  @Option(names = "--order", paramLabel = "KIND",
      description = "alphanumeric, none, md5, shuffle, content or keymap (default: alphanumeric).")
  String order;

  @Option(names = "--seed", description = "Seed of the shuffle.")
  Long seed;

  @Option(names = "--descending", description = "Reverse an alphanumeric or content order.")
  Boolean descending;

  @Option(names = "--content-member", paramLabel = "SUFFIX", description = "Member holding the content key (cls).")
  String contentMember;

  @Option(names = "--content-type", paramLabel = "TYPE", description = "int, float or string (default: int).")
  String contentType;

  @Option(names = "--keymap-file", paramLabel = "FILE", description = "Key map lines: <pattern><sep><template>.")
  Path keymapFile;

  @Option(names = "--keymap-object", paramLabel = "URL", description = "Key map in an object.")
  String keymapObject;

  @Option(names = "--keymap-separator", paramLabel = "SEP", description = "Key map separator (default: tab).")
  String keymapSeparator;

  @Option(names = "--duplicated-records", paramLabel = "POLICY", description = "ignore, warn or abort (default: warn).")
  String duplicatedRecords;

  @Option(names = "--missing-shards", paramLabel = "POLICY", description = "ignore, warn or abort (default: abort).")
  String missingShards;

  @Option(names = "--keymap-malformed-line", paramLabel = "POLICY", description = "Default: abort.")
  String keymapMalformedLine;

  @Option(names = "--keymap-missing-key", paramLabel = "POLICY", description = "Default: abort.")
  String keymapMissingKey;

  @Option(names = "--content-key-missing", paramLabel = "POLICY", description = "Default: abort.")
  String contentKeyMissing;

  @Option(names = "--memory-budget", paramLabel = "BYTES", description = "Memory of the whole process but"
      + " for the JVM's own 96 MiB; past it, data spills (default: 80%% of the process's memory limit, its cgroup's"
      + " or else the machine's). The ./quarry launcher and the worker image size the heap from it: all of it for a"
      + " phase, half for sort run, whose record bytes take the other half outside the heap.")
  String memoryBudget;

  @Option(names = "--requests-in-flight", paramLabel = "N", description = "Object store requests at once (default:"
      + " 64).")
  Integer requestsInFlight;

  @Option(names = "--scratch", paramLabel = "URL", description = "Prefix for intermediate data (phase commands).")
  String scratch;

  @Option(names = "--dry-run", description = "Plan only: print the plan, write no shard.")
  Boolean dryRun;

  @Option(names = "--overwrite", description = "Replace the committed output of an earlier run at --output: its"
      + " manifest and index go first, then its shards (only those its manifest names); without it such a run is"
      + " refused. An unfinished run of the same job is replaced without it.")
  Boolean overwrite;

  /** The job these options describe. */
  public SortSpec spec() throws IOException {
    SortSpec file = specFile().spec();
    try {
      return merged(file);
    } catch (InvalidSpecException e) {
      throw new IllegalArgumentException(e.message(this::name), e);
    }
  }

  /**
   * The S3 connection of this job: the environment's ({@link S3Settings#fromEnvironment()}), with the --spec
   * file's store in its place where it gives one, and the job's requests in flight.
   */
  public S3Settings s3Settings(S3Settings environment) throws IOException {
    return specFile().store().over(environment).withRequestsInFlight(spec().workers().requestsInFlight());
  }

  private SpecFile specFile() throws IOException {
    if (file == null) {
      file = specFile == null ? new SpecFile(null, SpecStore.NONE) : SpecFile.read(specFile);
    }
    return file;
  }

  /** A field by the option that set it, or by its path in the spec when the --spec file did. */
  private String name(String path) {
    List<String> options = OPTIONS.get(path);
    if (options == null || (specFile != null && options.stream().noneMatch(this::given))) {
      return path;
    }
    return String.join(" or ", options);
  }

  private boolean given(String option) {
    return command != null && command.commandLine() != null && command.commandLine().getParseResult() != null
        && command.commandLine().getParseResult().hasMatchedOption(option);
  }

  private SortSpec merged(SortSpec file) throws IOException {
    SortSpec.Input in = input != null ? input(input, inputFormat)
        : file != null ? file.input() : missing("--input");
    SortSpec.Output fileOutput = file == null ? null : file.output();
    boolean sizingGiven = shardSize != null || recordsPerShard != null || shardCount != null;
    SortSpec.Output out = new SortSpec.Output(
        output != null ? output : fileOutput == null ? null : fileOutput.template(),
        outputFormat != null ? outputFormat : fileOutput == null ? null : fileOutput.format(),
        sizingGiven ? shardSize : fileOutput == null ? null : fileOutput.shardSize(),
        sizingGiven ? recordsPerShard : fileOutput == null ? null : fileOutput.recordsPerShard(),
        sizingGiven ? shardCount : fileOutput == null ? null : fileOutput.shardCount());
    SortSpec.Order sortOrder = order(file);
    SortSpec.Policies filePolicies = file == null ? SortSpec.Policies.DEFAULT : file.policies();
    SortSpec.Policies policies = new SortSpec.Policies(
        policy(duplicatedRecords, filePolicies.duplicatedRecords()),
        policy(missingShards, filePolicies.missingShards()),
        policy(keymapMalformedLine, filePolicies.keymapMalformedLine()),
        policy(keymapMissingKey, filePolicies.keymapMissingKey()),
        policy(contentKeyMissing, filePolicies.contentKeyMissing()));
    SortSpec.Workers fileWorkers = file == null ? SortSpec.Workers.DEFAULT : file.workers();
    SortSpec.Workers workers = new SortSpec.Workers(
        memoryBudget != null ? memoryBudget : fileWorkers.memoryBudget(),
        requestsInFlight != null ? requestsInFlight : fileWorkers.requestsInFlight());
    return new SortSpec(in, out, sortOrder, policies, workers,
        scratch != null ? scratch : file == null ? null : file.scratch(),
        dryRun != null ? dryRun : file != null && file.isDryRun(),
        overwrite != null ? overwrite : file != null && file.isOverwrite());
  }

  private static SortSpec.Input input(List<String> urls, String format) {
    if (urls.size() == 1 && urls.get(0).contains("{")) {
      return new SortSpec.Input(urls.get(0), null, null, format);
    }
    if (urls.size() == 1 && urls.get(0).endsWith("/")) {
      return new SortSpec.Input(null, urls.get(0), null, format);
    }
    return new SortSpec.Input(null, null, urls, format);
  }

  /**
   * With --order, the order the options describe; without it, the file's order with each order option given in
   * place of its field.
   */
  private SortSpec.Order order(SortSpec file) throws IOException {
    SortSpec.Order base = file == null || order != null ? null : file.order();
    OrderKind kind = order != null ? orderKind(order) : base != null ? base.kind() : OrderKind.ALPHANUMERIC;
    SortSpec.ContentKey baseContent = base == null ? null : base.content();
    SortSpec.ContentKey content = contentMember == null && contentType == null ? baseContent
        : new SortSpec.ContentKey(contentMember != null ? contentMember
            : baseContent == null ? null : baseContent.member(),
            contentType != null ? contentType(contentType)
                : baseContent == null ? SortSpec.ContentType.INT : baseContent.type());
    SortSpec.Keymap baseKeymap = base == null ? null : base.keymap();
    SortSpec.Keymap keymap = keymapFile != null || keymapObject != null
        ? new SortSpec.Keymap(keymapFile == null ? null : keymap(keymapFile), keymapObject, keymapSeparator)
        : keymapSeparator != null && baseKeymap != null
            ? new SortSpec.Keymap(baseKeymap.inline(), baseKeymap.object(), keymapSeparator) : baseKeymap;
    return new SortSpec.Order(kind, descending != null ? descending : base == null ? null : base.descending(),
        seed != null ? seed : base == null ? null : base.seed(), content, keymap);
  }

  private static String keymap(Path path) throws IOException {
    try {
      return Files.readString(path, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("Cannot read --keymap-file " + path + ": no such file");
    }
  }

  private static SortSpec.ContentType contentType(String name) {
    try {
      return SortSpec.ContentType.valueOf(name.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid --content-type: " + name + " (must be int, float or string)");
    }
  }

  private static OrderKind orderKind(String name) {
    try {
      return OrderKind.valueOf(name.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid order: " + name + " (must be alphanumeric, none, md5, shuffle,"
          + " content or keymap)");
    }
  }

  private static Policy policy(String option, Policy fromFile) {
    return option == null ? fromFile : Policy.of(option);
  }

  private static <T> T missing(String option) {
    throw new IllegalArgumentException("Missing " + option + " (or a --spec file that has it)");
  }
}
