package dev.quarry.core.sort.spec;

import static dev.quarry.core.sort.spec.InvalidSpecException.field;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.memory.MemoryLimit;
import dev.quarry.core.policy.Policy;
import dev.quarry.core.sort.MemoryBudget;
import dev.quarry.core.units.ByteSize;
import java.util.List;

/**
 * What a shard sort does, in the same JSON shape as a ShardSortJob's spec, so the operator hands the resource's spec
 * to its workers as it is. Fields the engine does not use (the store connection, pod resources) are ignored.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SortSpec(Input input, Output output, Order order, Policies policies, Workers workers, String scratch,
    Boolean dryRun, Boolean overwrite) {

  public SortSpec {
    required(input, "input");
    required(output, "output");
    required(order, "order");
    policies = policies == null ? Policies.DEFAULT : policies;
    workers = workers == null ? Workers.DEFAULT : workers;
    if (output.template() == null) {
      throw new InvalidSpecException("Missing %s (must be given; with a keymap order, its folder is the output"
          + " location the key map's templates must stay in)", field("output.template"));
    }
    if (scratch != null) {
      ScratchOverlap.check(input, output, scratch);
    }
    ShardFormat declared = output.shardFormat();
    ShardFormat named = ShardFormat.named(output.template()).orElse(null);
    // With a key map order the template gives only the folder; the key map's lines are checked as they are read.
    if (order.kind() != OrderKind.KEYMAP && declared != null && named != null && named != declared) {
      throw new InvalidSpecException("Invalid %s: %s, where %s %s names %s shards (name the shards .%s, or set %s to"
          + " %s)", field("output.format"), output.format(), field("output.template"), output.template(),
          named.extension(), declared.extension(), field("output.format"), named.extension());
    }
  }

  private static void required(Object value, String path) {
    if (value == null) {
      throw new InvalidSpecException("Missing %s", field(path));
    }
  }

  /** A quantity such as 256Mi; one that is not a quantity is refused with its field. */
  private static long bytes(String quantity, String path) {
    try {
      return ByteSize.parse(quantity);
    } catch (IllegalArgumentException e) {
      throw new InvalidSpecException("Invalid %s: %s (must be a whole number with an optional suffix Ki, Mi, Gi, Ti,"
          + " Pi, Ei, k, M, G, T, P or E, for example 256Mi)", field(path), quantity);
    }
  }

  /** A job that does not replace an earlier run's output. */
  public SortSpec(Input input, Output output, Order order, Policies policies, Workers workers, String scratch,
      Boolean dryRun) {
    this(input, output, order, policies, workers, scratch, dryRun, null);
  }

  public boolean isDryRun() {
    return Boolean.TRUE.equals(dryRun);
  }

  /** Whether the job may replace the committed output of an earlier run in its output location. */
  public boolean isOverwrite() {
    return Boolean.TRUE.equals(overwrite);
  }

  /** The folder every output name must be in. */
  public OutputLocation outputLocation() {
    return OutputLocation.of(output.template());
  }

  /** The input shards: exactly one of a brace template, a prefix, or a list of URLs. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Input(String template, String prefix, List<String> objects, String format) {
    public Input {
      int given = (template != null ? 1 : 0) + (prefix != null ? 1 : 0) + (objects != null ? 1 : 0);
      if (given != 1) {
        throw new InvalidSpecException("Invalid input: %s of %s, %s and %s given (must be exactly one)", given,
            field("input.template"), field("input.prefix"), field("input.objects"));
      }
      if (template != null) {
        BraceTemplate.parse(template, false);
      }
      if (format != null) {
        ShardFormat.ofExtension(format);
      }
    }

    /** The declared format, or null to infer it from each name. */
    public ShardFormat shardFormat() {
      return format == null ? null : ShardFormat.ofExtension(format);
    }
  }

  /** The output shards: a template, a format, and exactly one way of sizing them. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Output(String template, String format, String shardSize, Long recordsPerShard, Long shardCount) {
    public Output {
      int given = (shardSize != null ? 1 : 0) + (recordsPerShard != null ? 1 : 0) + (shardCount != null ? 1 : 0);
      if (given != 1) {
        throw new InvalidSpecException("Invalid output sizing: %s of %s, %s and %s given (must be exactly one)",
            given, field("output.shardSize"), field("output.recordsPerShard"), field("output.shardCount"));
      }
      if (template != null) {
        if (BraceTemplate.parse(template, true).suffix().contains("/")) {
          throw new InvalidSpecException("Invalid %s: %s (must have its range in the file name, not in a folder"
              + " name)", field("output.template"), template);
        }
        if (OutputLocation.inReservedFolder(template)) {
          throw new InvalidSpecException("Invalid %s: %s (must not be in a %s folder, which is reserved for sort"
              + " scratch)", field("output.template"), template, OutputLocation.RESERVED_FOLDER);
        }
      }
      if (format != null) {
        ShardFormat.ofExtension(format);
      }
      if (shardSize != null && bytes(shardSize, "output.shardSize") < 1) {
        throw new InvalidSpecException("Invalid %s: %s (must be at least 1 byte)", field("output.shardSize"),
            shardSize);
      }
      if (recordsPerShard != null && recordsPerShard < 1) {
        throw new InvalidSpecException("Invalid %s: %s (must be at least 1)", field("output.recordsPerShard"),
            recordsPerShard);
      }
      if (shardCount != null && shardCount < 1) {
        throw new InvalidSpecException("Invalid %s: %s (must be at least 1)", field("output.shardCount"),
            shardCount);
      }
    }

    /** The declared format, or null to take the one the shards' names end in, else the input's. */
    public ShardFormat shardFormat() {
      return format == null ? null : ShardFormat.ofExtension(format);
    }

    /** The shard size in bytes, or 0 when shards are sized otherwise. */
    public long shardSizeBytes() {
      return shardSize == null ? 0 : ByteSize.parse(shardSize);
    }
  }

  /** The order of records across the output. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Order(OrderKind kind, Boolean descending, Long seed, ContentKey content, Keymap keymap) {
    public Order {
      required(kind, "order.kind");
      if (seed != null && kind != OrderKind.SHUFFLE) {
        throw new InvalidSpecException("Invalid %s: only allowed with %s shuffle", field("order.seed"),
            field("order.kind"));
      }
      if (kind == OrderKind.SHUFFLE && seed == null) {
        throw new InvalidSpecException("Invalid %s: shuffle needs %s", field("order.kind"), field("order.seed"));
      }
      if (Boolean.TRUE.equals(descending) && kind != OrderKind.ALPHANUMERIC && kind != OrderKind.CONTENT) {
        throw new InvalidSpecException("Invalid %s: only allowed with %s alphanumeric or content",
            field("order.descending"), field("order.kind"));
      }
      if ((content != null) != (kind == OrderKind.CONTENT)) {
        throw new InvalidSpecException("Invalid %s: required with, and only allowed with, %s content",
            field("order.content"), field("order.kind"));
      }
      if ((keymap != null) != (kind == OrderKind.KEYMAP)) {
        throw new InvalidSpecException("Invalid %s: required with, and only allowed with, %s keymap",
            field("order.keymap"), field("order.kind"));
      }
    }

    public boolean isDescending() {
      return Boolean.TRUE.equals(descending);
    }
  }

  /** The member holding a record's sort key, and how its text is parsed. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ContentKey(String member, ContentType type) {
    public ContentKey {
      required(member, "order.content.member");
      required(type, "order.content.type");
    }
  }

  /** How a content key member's text is parsed. */
  public enum ContentType {
    @com.fasterxml.jackson.annotation.JsonProperty("int")
    INT,
    @com.fasterxml.jackson.annotation.JsonProperty("float")
    FLOAT,
    @com.fasterxml.jackson.annotation.JsonProperty("string")
    STRING
  }

  /** Lines of {@code <pattern><separator><output template>}, inline or in an object. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Keymap(String inline, String object, String separator) {
    public Keymap {
      if ((inline == null) == (object == null)) {
        throw new InvalidSpecException("Invalid %s: needs exactly one of %s or %s", field("order.keymap"),
            field("order.keymap.inline"), field("order.keymap.object"));
      }
      separator = separator == null ? "\t" : separator;
      if (separator.isEmpty()) {
        throw new InvalidSpecException("Invalid %s: empty (must be at least one character)",
            field("order.keymap.separator"));
      }
    }
  }

  /** What happens with each kind of problem in the input. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Policies(Policy duplicatedRecords, Policy missingShards, Policy keymapMalformedLine,
      Policy keymapMissingKey, Policy contentKeyMissing) {
    public static final Policies DEFAULT = new Policies(null, null, null, null, null);

    public Policies {
      duplicatedRecords = duplicatedRecords == null ? Policy.WARN : duplicatedRecords;
      missingShards = missingShards == null ? Policy.ABORT : missingShards;
      keymapMalformedLine = keymapMalformedLine == null ? Policy.ABORT : keymapMalformedLine;
      keymapMissingKey = keymapMissingKey == null ? Policy.ABORT : keymapMissingKey;
      contentKeyMissing = contentKeyMissing == null ? Policy.ABORT : contentKeyMissing;
    }
  }

  /**
   * How much memory and concurrency each worker uses. Without a memory budget, each process takes the default of
   * the machine it runs on ({@link MemoryBudget#defaultFor}): a null {@code memoryBudget} stays null, so that a spec
   * written for other processes (the phase pods) leaves it to theirs.
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Workers(String memoryBudget, Integer requestsInFlight) {
    public static final Workers DEFAULT = new Workers(null, null);

    public Workers {
      requestsInFlight = requestsInFlight == null ? 64 : requestsInFlight;
      if (memoryBudget != null && bytes(memoryBudget, "workers.memoryBudget") < (16L << 20)) {
        throw new InvalidSpecException("Invalid %s: %s (must be at least 16Mi)", field("workers.memoryBudget"),
            memoryBudget);
      }
      if (requestsInFlight < 1) {
        throw new InvalidSpecException("Invalid %s: %s (must be at least 1)", field("workers.requestsInFlight"),
            requestsInFlight);
      }
    }

    /** The budget set, else the default of this process's memory limit. */
    public MemoryBudget memory() {
      return memoryBudget == null ? MemoryBudget.defaultFor(MemoryLimit.ofThisProcess())
          : new MemoryBudget(ByteSize.parse(memoryBudget));
    }
  }
}
