package dev.quarry.core.policy;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Locale;

/** What an engine does when it meets a recoverable problem in the data; the API's policies map onto it. */
public enum Policy {
  /** Carry on; the problem is only counted. */
  @JsonProperty("ignore")
  IGNORE,
  /** Carry on; the problem is counted and reported as a warning. */
  @JsonProperty("warn")
  WARN,
  /** Stop with an error naming the problem. */
  @JsonProperty("abort")
  ABORT;

  /** Parses {@code ignore}, {@code warn} or {@code abort}. */
  public static Policy of(String name) {
    try {
      return valueOf(name.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid policy: " + name + " (must be ignore, warn or abort)");
    }
  }
}
