package dev.quarry.cli.sort;

import dev.quarry.core.json.Json;
import dev.quarry.core.policy.Policy;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * The job, from a JSON file in the shape of a ShardSortJob's spec ({@code --spec}, what the operator passes its
 * workers) or from options (what people type). Options given with {@code --spec} override the file's fields.
 */
public final class SortSpecOptions {
  @Option(names = "--spec", paramLabel = "FILE", description = "The job as JSON, in the shape of a ShardSortJob spec.")
  Path specFile;

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
      description = "Output format: tar, tar.gz, tar.lz4, zip or msgpack (default: the input's).")
  String outputFormat;

  @Option(names = "--shard-size", paramLabel = "BYTES", description = "Target shard size, as a quantity (256Mi).")
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

  @Option(names = "--memory-budget", paramLabel = "BYTES", description = "Memory for record data and metadata"
      + " before spilling (default: 1Gi).")
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
    SortSpec file = specFile == null ? null : Json.read(Files.readString(specFile), SortSpec.class);
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

  private SortSpec.Order order(SortSpec file) throws IOException {
    if (order == null && file != null && seed == null && descending == null && contentMember == null
        && keymapFile == null && keymapObject == null) {
      return file.order();
    }
    OrderKind kind = order == null ? OrderKind.ALPHANUMERIC : orderKind(order);
    SortSpec.ContentKey content = contentMember == null ? null : new SortSpec.ContentKey(contentMember,
        contentType == null ? SortSpec.ContentType.INT
            : SortSpec.ContentType.valueOf(contentType.toUpperCase(Locale.ROOT)));
    SortSpec.Keymap keymap = keymapFile == null && keymapObject == null ? null : new SortSpec.Keymap(
        keymapFile == null ? null : Files.readString(keymapFile, StandardCharsets.UTF_8), keymapObject,
        keymapSeparator);
    return new SortSpec.Order(kind, descending, seed, content, keymap);
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
