package dev.quarry.cli.output;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import org.apache.commons.io.output.WriterOutputStream;

/** Progress for people goes to a command's error stream, so that stdout stays the result for scripts and tests. */
public final class ProgressLog {
  private ProgressLog() {}

  public static PrintStream to(PrintWriter err) {
    return new PrintStream(WriterOutputStream.builder().setWriter(err).setCharset(StandardCharsets.UTF_8)
        .setWriteImmediately(true).getUnchecked(), true, StandardCharsets.UTF_8);
  }
}
