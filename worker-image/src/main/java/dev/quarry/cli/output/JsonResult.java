package dev.quarry.cli.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/** Renders a command's result as the JSON that the operator and scripts read. */
public final class JsonResult {
  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  private JsonResult() {}

  public static String write(Object result) throws JsonProcessingException {
    return MAPPER.writeValueAsString(result);
  }
}
