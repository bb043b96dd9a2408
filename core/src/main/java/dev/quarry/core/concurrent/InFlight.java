package dev.quarry.core.concurrent;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one blocking task per item on virtual threads, at most {@code limit} at once: the shape of thousands of object
 * store requests in flight. Every item runs even when others fail; failures are returned for the caller to count and
 * report per object. An Error (out of memory, a class that failed to initialize) is not an item's failure: it is
 * thrown to the caller once the items in flight are done, never lost with its thread.
 */
public final class InFlight {
  /** One item's work. */
  @FunctionalInterface
  public interface Task<T> {
    void run(T item) throws Exception;
  }

  private InFlight() {}

  /** Runs {@code task} for every item; returns the items that failed with what they threw (empty: all succeeded). */
  public static <T> Map<T, Exception> forEach(Collection<T> items, int limit, Task<T> task)
      throws InterruptedException {
    Map<T, Exception> failures = new ConcurrentHashMap<>();
    AtomicReference<Error> error = new AtomicReference<>();
    Semaphore slots = new Semaphore(Math.max(1, limit));
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      for (T item : items) {
        slots.acquire();
        threads.execute(() -> {
          try {
            task.run(item);
          } catch (Exception e) {
            failures.put(item, e);
          } catch (Error e) {
            if (!error.compareAndSet(null, e) && error.get() != e) {
              error.get().addSuppressed(e);
            }
          } finally {
            slots.release();
          }
        });
      }
    }
    if (error.get() != null) {
      throw error.get();
    }
    return failures;
  }

  /** Like {@link #forEach} but throws the first failure, for work where one failure fails the whole. */
  public static <T> void all(Collection<T> items, int limit, Task<T> task) throws java.io.IOException {
    Map<T, Exception> failures;
    try {
      failures = forEach(items, limit, task);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("Interrupted while waiting for requests in flight");
    }
    if (!failures.isEmpty()) {
      throw Futures.asIoException(failures.values().iterator().next());
    }
  }
}
