package dev.quarry.core.concurrent;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

/**
 * Runs one blocking task per item on virtual threads, at most {@code limit} at once: the shape of thousands of object
 * store requests in flight. Every item runs even when others fail; failures are returned for the caller to count and
 * report per object. An Error (out of memory, a class that failed to initialize) is not an item's failure: it is
 * thrown to the caller once the items in flight are done, never lost with its thread.
 */
public final class InFlight {
  /** Requests a sort worker makes at once: 200 in a row become 13 rounds, leaving 48 of a store's 64 connections. */
  public static final int SORT_REQUESTS = 16;

  /** One item's work. */
  @FunctionalInterface
  public interface Task<T> {
    void run(T item) throws Exception;
  }

  /** One item's work, and what it gives. */
  @FunctionalInterface
  public interface Call<T, R> {
    R run(T item) throws Exception;
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
  public static <T> void all(Collection<T> items, int limit, Task<T> task) throws IOException {
    Map<T, Exception> failures;
    try {
      failures = forEach(items, limit, task);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while waiting for requests in flight");
    }
    if (!failures.isEmpty()) {
      throw Futures.asIoException(failures.values().iterator().next());
    }
  }

  /**
   * Runs {@code call} for every item, at most {@code limit} at once, and returns what each gave, in the items' order.
   * Every item runs even when others fail; then the failure of the first item that failed, in that order, is thrown
   * (so an error names the same item whatever finished first).
   */
  public static <T, R> List<R> inOrder(List<T> items, int limit, Call<T, R> call)
      throws IOException, InterruptedException {
    Semaphore slots = new Semaphore(Math.max(1, limit));
    List<Future<R>> running = new ArrayList<>(items.size());
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      for (T item : items) {
        slots.acquire();
        running.add(threads.submit(() -> {
          try {
            return call.run(item);
          } finally {
            slots.release();
          }
        }));
      }
      List<R> results = new ArrayList<>(items.size());
      for (Future<R> result : running) {
        results.add(result.get());
      }
      return results;
    } catch (ExecutionException e) {
      throw Futures.unwrap(e);
    }
  }

  /** 0 to {@code count} - 1: the items of requests made by index. */
  public static List<Integer> indexes(int count) {
    return IntStream.range(0, count).boxed().toList();
  }
}
