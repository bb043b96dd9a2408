package dev.quarry.cli.output;

import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import org.apache.commons.io.output.WriterOutputStream;

/**
 * Progress for people goes to a command's error stream, so that stdout stays the result for scripts and tests: on a
 * terminal as one status line redrawn in place ({@link StatusLineStream}), elsewhere (a pod's log, a pipe, a file)
 * as plain lines.
 */
public final class ProgressLog {
  private ProgressLog() {}

  public static PrintStream to(PrintWriter err) {
    return to(err, Terminal.ofStandardError().orElse(null));
  }

  /** {@code terminal}: the terminal {@code err} goes to, or null for plain lines. */
  static PrintStream to(PrintWriter err, Terminal terminal) {
    OutputStream bytes = WriterOutputStream.builder().setWriter(err).setCharset(StandardCharsets.UTF_8)
        .setWriteImmediately(true).getUnchecked();
    return terminal == null ? new PrintStream(bytes, true, StandardCharsets.UTF_8)
        : new StatusLineStream(bytes, terminal);
  }

  /**
   * What to print before a message on the error stream so that it does not land on a status line a failed step
   * left: the erase when the stream is a terminal, else nothing.
   */
  public static String lineStart() {
    return Terminal.ofStandardError().isPresent() ? StatusLineStream.CLEAR_LINE : "";
  }
}
