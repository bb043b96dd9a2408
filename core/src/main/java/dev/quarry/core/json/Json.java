package dev.quarry.core.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;

/** The one JSON configuration: results, manifests, plans and job specs all read and write through it. */
public final class Json {
  private static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT)
      .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .setSerializationInclusion(JsonInclude.Include.NON_NULL);

  private Json() {}

  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write " + value.getClass().getSimpleName() + " as JSON", e);
    }
  }

  /**
   * One line, no indentation: for result files that become pod termination messages, which Kubernetes cuts at
   * 4 KiB.
   */
  public static String writeCompact(Object value) {
    try {
      return MAPPER.writer().without(SerializationFeature.INDENT_OUTPUT).writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write " + value.getClass().getSimpleName() + " as JSON", e);
    }
  }

  public static byte[] bytes(Object value) {
    return write(value).getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  public static <T> T read(byte[] json, Class<T> type) throws IOException {
    return MAPPER.readValue(json, type);
  }

  /** A parser of {@code in}, a token at a time: for documents read back that may be too large to hold whole. */
  public static com.fasterxml.jackson.core.JsonParser parser(java.io.InputStream in) throws IOException {
    return MAPPER.createParser(in);
  }

  public static <T> T read(String json, Class<T> type) throws IOException {
    return MAPPER.readValue(json, type);
  }
}
