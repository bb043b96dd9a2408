package dev.quarry.cli;

/**
 * A command whose exit code 1 means something other than an error (a difference found, as diff(1)): its errors exit
 * with {@link #errorExitCode()} instead of {@link UserErrorHandler#USER_ERROR}.
 */
public interface ErrorExitCode {
  int errorExitCode();
}
