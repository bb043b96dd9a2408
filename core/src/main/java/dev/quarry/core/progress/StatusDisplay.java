package dev.quarry.core.progress;

/**
 * A log that shows progress in place (a terminal's status line, redrawn) rather than as a line each time. The log
 * streams progress is printed to may be one; {@link ProgressPrinter} asks.
 */
public interface StatusDisplay {
  /** Shows where a step stands, in place of what it showed before. */
  void status(ProgressLine line);

  /** Ends the step: its last line stays, as a line of the log. */
  void finish(ProgressLine line);
}
