package dev.quarry.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What an engine does when it meets a recoverable problem in the data. */
public enum Policy {
  /** Carry on without a trace beyond a counter. */
  @JsonProperty("ignore")
  IGNORE,
  /** Carry on, and report each case as a warning in the worker's output and the resource's status. */
  @JsonProperty("warn")
  WARN,
  /** Stop the job with a failure naming the case. */
  @JsonProperty("abort")
  ABORT
}
