package dev.quarry.cli.sort;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.quarry.core.sort.spec.SortSpec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * A {@code --spec} file: a ShardSortJob as {@code kubectl apply} takes it ({@code apiVersion}, {@code kind},
 * {@code metadata}, {@code spec}; other documents of the file are skipped) or its spec alone, in YAML or JSON. A
 * mistake is one line that names the file, where in it, and what is wrong, and never quotes the file.
 *
 * @param spec the job
 * @param store the spec's {@code store} connection; every field null when it has none
 */
record SpecFile(SortSpec spec, SpecStore store) {
  private static final String KIND = "ShardSortJob";
  private static final String EXPECTED = "(must be a ShardSortJob or its spec, in YAML or JSON)";
  private static final ObjectMapper YAML = configure(new YAMLMapper());
  private static final ObjectMapper JSON = configure(new ObjectMapper());

  /** The most bytes a spec file may have: a spec is a few KiB, an inline key map of a large dataset some hundreds. */
  static final int MAX_BYTES = 1 << 20;

  private static ObjectMapper configure(ObjectMapper mapper) {
    mapper.getFactory().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    return mapper.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }

  static SpecFile read(Path path) throws IOException {
    String text = text(path);
    ObjectMapper mapper = mapperFor(text);
    try {
      Job job = job(path, mapper, text);
      try (JsonParser parser = mapper.createParser(text)) {
        moveToSpec(parser, job);
        SortSpec spec = mapper.readValue(parser, SortSpec.class);
        JsonNode store = job.spec().get("store");
        return new SpecFile(spec, store == null || store.isNull() ? SpecStore.NONE
            : mapper.treeToValue(store, SpecStore.class));
      }
    } catch (JsonProcessingException e) {
      throw refused(path, problem(e));
    }
  }

  /**
   * The job's {@code workers.memoryBudget} as written, else null: what sizes the heap of the JVM that will run the
   * job ({@link MemoryOptions}), read before it starts. The rest of the spec is that JVM's to check (a phase's
   * options complete it).
   */
  static String memoryBudget(Path path) throws IOException {
    String text = text(path);
    ObjectMapper mapper = mapperFor(text);
    try {
      JsonNode budget = job(path, mapper, text).spec().path("workers").path("memoryBudget");
      return budget.isValueNode() && !budget.isNull() ? budget.asText() : null;
    } catch (JsonProcessingException e) {
      throw refused(path, problem(e));
    }
  }

  private static ObjectMapper mapperFor(String text) {
    return text.stripLeading().startsWith("{") ? JSON : YAML;
  }

  /** The file's text, when it is UTF-8 and at most {@link #MAX_BYTES}. */
  private static String text(Path path) throws IOException {
    try (InputStream in = Files.newInputStream(path)) {
      byte[] bytes = in.readNBytes(MAX_BYTES + 1);
      if (bytes.length > MAX_BYTES) {
        throw refused(path, "it is larger than 1 MiB " + EXPECTED);
      }
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw refused(path, "it is not UTF-8 text " + EXPECTED);
    } catch (NoSuchFileException e) {
      throw refused(path, "no such file");
    } catch (IOException e) {
      throw refused(path, Files.isDirectory(path) ? "it is a folder" : String.valueOf(e.getMessage()));
    }
  }

  /** Where the job is: its document's index, whether that is a whole resource, and its spec as a tree. */
  private record Job(int document, boolean manifest, JsonNode spec) {}

  /** The one ShardSortJob among the file's documents, or its only document when that has no kind. */
  private static Job job(Path path, ObjectMapper mapper, String text) throws IOException {
    List<JsonNode> documents = new ArrayList<>();
    try (var values = mapper.readerFor(JsonNode.class).<JsonNode>readValues(text)) {
      while (values.hasNextValue()) { // not its Iterator, which hides the error's line in an unchecked exception
        documents.add(values.nextValue());
      }
    }
    List<Integer> jobs = new ArrayList<>();
    for (int index = 0; index < documents.size(); index++) {
      if (KIND.equals(documents.get(index).path("kind").asText(null))) {
        jobs.add(index);
      }
    }
    if (jobs.size() > 1) {
      throw refused(path, "it holds " + jobs.size() + " ShardSortJobs (must hold one)");
    }
    if (jobs.size() == 1) {
      JsonNode spec = documents.get(jobs.getFirst()).get("spec");
      if (spec == null || !spec.isObject()) {
        throw refused(path, "its ShardSortJob has no spec " + EXPECTED);
      }
      return new Job(jobs.getFirst(), true, spec);
    }
    if (documents.size() == 1 && documents.getFirst().isObject() && !documents.getFirst().has("kind")) {
      return new Job(0, false, documents.getFirst());
    }
    if (documents.size() == 1 && documents.getFirst().has("kind")) {
      throw refused(path, "it is a " + documents.getFirst().path("kind").asText() + " " + EXPECTED);
    }
    throw refused(path, documents.isEmpty() ? "it is empty " + EXPECTED
        : "it holds no ShardSortJob " + EXPECTED);
  }

  /** Moves {@code parser} onto the start of the job's spec, so that errors in it carry their line. */
  private static void moveToSpec(JsonParser parser, Job job) throws IOException {
    for (int index = 0; index < job.document(); index++) {
      parser.nextToken();
      parser.skipChildren();
    }
    parser.nextToken();
    if (!job.manifest()) {
      return;
    }
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String name = parser.currentName();
      parser.nextToken();
      if (name.equals("spec")) {
        return;
      }
      parser.skipChildren();
    }
    throw new IllegalStateException("Cannot find the spec of the ShardSortJob it was found in");
  }

  /** "line 4, column 3: what is wrong", or for a field "line 9, column 11: order.kind: what is wrong". */
  static String problem(JsonProcessingException e) {
    IllegalArgumentException refusal = refusal(e);
    if (refusal != null) {
      return refusal.getMessage();
    }
    JsonLocation location = e.getLocation();
    String where = location == null || location.getLineNr() < 1 ? ""
        : "line " + location.getLineNr() + ", column " + location.getColumnNr() + ": ";
    String what;
    if (e.getCause() instanceof MarkedYAMLException yaml) {
      what = yaml.getProblem();
    } else if (e instanceof InvalidFormatException format && format.getTargetType() != null
        && format.getTargetType().isEnum()) {
      what = format.getValue() + " is not one of " + Arrays.stream(format.getTargetType().getEnumConstants())
          .map(SpecFile::jsonName).collect(Collectors.joining(", "));
    } else if (e instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
      // Jackson's own words name Java classes and tokens: say what the field takes instead.
      what = "the value is not " + kind(mismatch.getTargetType());
    } else {
      what = e.getOriginalMessage().lines().findFirst().orElse("").strip();
    }
    String field = e instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()
        ? path(mapping.getPath()) + ": " : "";
    return where + field + what + (e instanceof JsonMappingException ? "" : " " + EXPECTED);
  }

  /** What a field of {@code type} takes, in the words of YAML and JSON. */
  private static String kind(Class<?> type) {
    if (type == Long.class || type == long.class || type == Integer.class || type == int.class) {
      return "a whole number";
    }
    if (type == Double.class || type == double.class) {
      return "a number";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (type == String.class) {
      return "a string";
    }
    if (Collection.class.isAssignableFrom(type) || type.isArray()) {
      return "a list";
    }
    return "a mapping of fields";
  }

  /** The spec's own refusal ("Invalid output.shardSize: 0 ..."), when a value was refused by the spec. */
  private static IllegalArgumentException refusal(Throwable e) {
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      if (cause instanceof IllegalArgumentException refused) {
        return refused;
      }
    }
    return null;
  }

  private static String path(List<JsonMappingException.Reference> references) {
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference reference : references) {
      if (reference.getFieldName() != null) {
        path.append(path.isEmpty() ? "" : ".").append(reference.getFieldName());
      } else if (reference.getIndex() >= 0) {
        path.append('[').append(reference.getIndex()).append(']');
      }
    }
    return path.toString();
  }

  private static String jsonName(Object constant) {
    try {
      return JSON.writeValueAsString(constant).replace("\"", "");
    } catch (JsonProcessingException e) {
      return constant.toString();
    }
  }

  private static IllegalArgumentException refused(Path path, String problem) {
    return new IllegalArgumentException("Cannot read --spec " + path + ": " + problem);
  }
}
