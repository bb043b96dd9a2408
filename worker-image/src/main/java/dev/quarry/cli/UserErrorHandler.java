package dev.quarry.cli;

import dev.quarry.cli.output.ProgressLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Turns the errors a user can act on (bad arguments, I/O problems, an S3 store that cannot be reached or signed for)
 * into one line on stderr and exit code 1 (or the command's own, {@link ErrorExitCode}); any other exception is a bug
 * and keeps its stack trace.
 */
final class UserErrorHandler implements IExecutionExceptionHandler {
  static final int USER_ERROR = 1;

  @Override
  public int handleExecutionException(Exception e, CommandLine command, ParseResult parsed) throws Exception {
    if (e instanceof IllegalArgumentException || e instanceof IllegalStateException || e instanceof IOException
        || e instanceof UncheckedIOException || e instanceof SdkException) {
      command.getErr().println(ProgressLog.lineStart() + command.getColorScheme().errorText("quarry: " + message(e)));
      return command.getCommand() instanceof ErrorExitCode own ? own.errorExitCode() : USER_ERROR;
    }
    throw e;
  }

  /** The exception's message, on one line; the JDK's file errors say only the path, so they get a reason. */
  static String message(Exception e) {
    Throwable cause = e instanceof UncheckedIOException unchecked ? unchecked.getCause() : e;
    String message = switch (cause) {
      case NoSuchFileException missing -> "Cannot find " + missing.getFile() + ": no such file or folder";
      case AccessDeniedException denied -> "Cannot access " + denied.getFile() + ": permission denied";
      case FileAlreadyExistsException exists -> "Cannot create " + exists.getFile() + ": it "
          + (Files.isRegularFile(Path.of(exists.getFile())) ? "exists and is not a folder" : "already exists");
      case NotDirectoryException notFolder -> "Cannot use " + notFolder.getFile() + ": it is not a folder";
      case FileSystemException other -> "Cannot access " + other.getFile() + ": "
          + (other.getReason() != null ? other.getReason() : other.getClass().getSimpleName());
      default -> String.valueOf(cause.getMessage());
    };
    return message.lines().findFirst().orElse("").strip();
  }
}
