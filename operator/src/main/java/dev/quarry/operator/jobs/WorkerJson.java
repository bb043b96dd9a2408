package dev.quarry.operator.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quarry.operator.status.CutText;
import java.util.Optional;

/**
 * The JSON the operator and its workers exchange: specs handed to workers, results read back. Reads the JSON result a worker left in its termination message. Kubernetes cuts termination messages at 4 KiB, and
 * a failed container's message is its log instead, so anything that does not parse is simply "no result".
 */
public final class WorkerJson {
  private static final ObjectMapper MAPPER = new ObjectMapper()
      .setSerializationInclusion(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /** The most characters of a worker's text a status or event carries. */
  public static final int MESSAGE_LIMIT = 512;
  private static final String CUT = "... (cut)";

  private WorkerJson() {}

  /** {@code text} as a {@code type}: an object, or an array for an array type; empty if it is neither. */
  public static <T> Optional<T> parse(String text, Class<T> type) {
    if (text == null || !text.strip().startsWith(type.isArray() ? "[" : "{")) {
      return Optional.empty();
    }
    try {
      return Optional.ofNullable(MAPPER.readValue(text, type));
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
  }

  /** {@code value} as JSON, for a worker to read (a spec file). */
  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write " + value.getClass().getSimpleName() + " as JSON: "
          + e.getOriginalMessage(), e);
    }
  }

  /** The last non-blank line of a failed worker's log: the {@code quarry: Cannot ...} line it printed last. */
  public static String lastLine(String text) {
    if (text == null) {
      return null;
    }
    return bounded(text.lines().map(String::strip).filter(line -> !line.isEmpty()).reduce((a, b) -> b).orElse(null));
  }

  /**
   * A worker's text as a status or event may carry it: control characters (terminal escapes, NULs) replaced and cut
   * at {@link #MESSAGE_LIMIT} characters. Workers print one-line messages that name objects, never their content;
   * this bounds what a misbehaving worker, or a log that is not such a line, can put into the resource.
   */
  public static String bounded(String text) {
    if (text == null) {
      return null;
    }
    String clean = text.replaceAll("[\\p{Cntrl}&&[^\\n]]|\\n", " ").replaceAll(" {2,}", " ").strip();
    return CutText.toLength(clean, MESSAGE_LIMIT, CUT);
  }
}
