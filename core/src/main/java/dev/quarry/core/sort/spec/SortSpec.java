package dev.quarry.core.sort.spec;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.policy.Policy;
import dev.quarry.core.units.ByteSize;
import java.util.List;
import java.util.Objects;

/**
 * What a shard sort does, in the same JSON shape as a ShardSortJob's spec, so the operator hands the resource's spec
 * to its workers as it is. Fields the engine does not use (the store connection, pod resources) are ignored.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SortSpec(Input input, Output output, Order order, Policies policies, Workers workers, String scratch,
    Boolean dryRun, Boolean overwrite) {

  public SortSpec {
    Objects.requireNonNull(input, "input");
    Objects.requireNonNull(output, "output");
    Objects.requireNonNull(order, "order");
    policies = policies == null ? Policies.DEFAULT : policies;
    workers = workers == null ? Workers.DEFAULT : workers;
    if (output.template() == null) {
      throw new IllegalArgumentException("Invalid output: no template (must be given; with a keymap order, its"
          + " folder is the output location the key map's templates must stay in)");
    }
    if (scratch != null) {
      ScratchOverlap.check(input, output, scratch);
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
        throw new IllegalArgumentException("Invalid input: " + given + " of template, prefix and objects given"
            + " (must be exactly one)");
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
        throw new IllegalArgumentException("Invalid output sizing: " + given + " of shardSize, recordsPerShard and"
            + " shardCount given (must be exactly one)");
      }
      if (template != null) {
        BraceTemplate.parse(template, true);
      }
      if (format != null) {
        ShardFormat.ofExtension(format);
      }
      if (shardSize != null && ByteSize.parse(shardSize) < 1) {
        throw new IllegalArgumentException("Invalid shard size: " + shardSize + " (must be at least 1 byte)");
      }
      if (recordsPerShard != null && recordsPerShard < 1) {
        throw new IllegalArgumentException("Invalid records per shard: " + recordsPerShard + " (must be at least 1)");
      }
      if (shardCount != null && shardCount < 1) {
        throw new IllegalArgumentException("Invalid shard count: " + shardCount + " (must be at least 1)");
      }
    }

    public ShardFormat shardFormat(ShardFormat inputFormat) {
      return format == null ? inputFormat : ShardFormat.ofExtension(format);
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
      Objects.requireNonNull(kind, "order.kind");
      if (seed != null && kind != OrderKind.SHUFFLE) {
        throw new IllegalArgumentException("Invalid order: a seed is only allowed with kind shuffle");
      }
      if (kind == OrderKind.SHUFFLE && seed == null) {
        throw new IllegalArgumentException("Invalid order: kind shuffle needs a seed");
      }
      if (Boolean.TRUE.equals(descending) && kind != OrderKind.ALPHANUMERIC && kind != OrderKind.CONTENT) {
        throw new IllegalArgumentException("Invalid order: descending is only allowed with kind alphanumeric or"
            + " content");
      }
      if ((content != null) != (kind == OrderKind.CONTENT)) {
        throw new IllegalArgumentException("Invalid order: content is required with, and only allowed with, kind"
            + " content");
      }
      if ((keymap != null) != (kind == OrderKind.KEYMAP)) {
        throw new IllegalArgumentException("Invalid order: keymap is required with, and only allowed with, kind"
            + " keymap");
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
      Objects.requireNonNull(member, "order.content.member");
      Objects.requireNonNull(type, "order.content.type");
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
        throw new IllegalArgumentException("Invalid keymap: needs exactly one of inline or object");
      }
      separator = separator == null ? "\t" : separator;
      if (separator.isEmpty()) {
        throw new IllegalArgumentException("Invalid keymap separator: empty (must be at least one character)");
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

  /** How much memory and concurrency each worker uses. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Workers(String memoryBudget, Integer requestsInFlight) {
    public static final Workers DEFAULT = new Workers(null, null);

    public Workers {
      memoryBudget = memoryBudget == null ? "1Gi" : memoryBudget;
      requestsInFlight = requestsInFlight == null ? 64 : requestsInFlight;
      if (ByteSize.parse(memoryBudget) < (16L << 20)) {
        throw new IllegalArgumentException("Invalid memory budget: " + memoryBudget + " (must be at least 16Mi)");
      }
      if (requestsInFlight < 1) {
        throw new IllegalArgumentException("Invalid requests in flight: " + requestsInFlight + " (must be at least 1)");
      }
    }

    public long memoryBudgetBytes() {
      return ByteSize.parse(memoryBudget);
    }
  }
}
