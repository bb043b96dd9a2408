package dev.quarry.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Turns the errors a user can act on (bad arguments, I/O problems) into one line on stderr and exit code 1; any
 * other exception is a bug and keeps its stack trace.
 */
final class UserErrorHandler implements IExecutionExceptionHandler {
  static final int USER_ERROR = 1;

  @Override
  public int handleExecutionException(Exception e, CommandLine command, ParseResult parsed) throws Exception {
    if (e instanceof IllegalArgumentException || e instanceof IllegalStateException || e instanceof IOException
        || e instanceof UncheckedIOException) {
      command.getErr().println(command.getColorScheme().errorText("quarry: " + e.getMessage()));
      return USER_ERROR;
    }
    throw e;
  }
}
