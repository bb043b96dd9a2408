package dev.quarry.core.concurrent;

import java.io.IOException;
import java.util.concurrent.ExecutionException;

/** What a failed background task threw, given back to the thread that waited for it. */
public final class Futures {
  private Futures() {}

  /** Rethrows an unchecked cause as it is; returns an I/O cause, or any other wrapped, for the caller to throw. */
  public static IOException unwrap(ExecutionException e) {
    Throwable cause = e.getCause();
    if (cause instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return cause instanceof IOException io ? io : new IOException(cause);
  }
}
