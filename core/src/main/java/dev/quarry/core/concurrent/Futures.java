package dev.quarry.core.concurrent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What a failed background task threw, given back to the thread that waited for it. */
public final class Futures {
  /** Blocking work that may fail with an I/O error. */
  @FunctionalInterface
  public interface IoSupplier<T> {
    T get() throws IOException;
  }

  private Futures() {}

  /** Rethrows an unchecked cause as it is; returns an I/O cause, or any other wrapped, for the caller to throw. */
  public static IOException unwrap(ExecutionException e) {
    return asIoException(e.getCause());
  }

  /** Rethrows an unchecked failure as it is; returns an I/O failure, or any other wrapped, for the caller to throw. */
  public static IOException asIoException(Throwable failure) {
    if (failure instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (failure instanceof Error error) {
      throw error;
    }
    return failure instanceof IOException io ? io : new IOException(failure);
  }

  /** Starts {@code work} in the background, to overlap it with work on this thread; {@link #join} it later. */
  public static <T> CompletableFuture<T> async(IoSupplier<T> work) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return work.get();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  /** Waits for {@link #async} work and throws what it threw. */
  public static <T> T join(CompletableFuture<T> future) throws IOException {
    try {
      return future.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      throw asIoException(cause instanceof UncheckedIOException unchecked ? unchecked.getCause() : cause);
    }
  }
}
