package dev.quarry.core.concurrent;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A value built on first use, once, by whichever thread asks first; the others wait for it. A lock rather than
 * {@code synchronized}, so that a virtual thread waiting here does not pin its carrier while the value is built.
 */
public final class Lazy<T> implements Supplier<T> {
  private final Supplier<T> builder;
  private final ReentrantLock lock = new ReentrantLock();
  private volatile T value;

  public Lazy(Supplier<T> builder) {
    this.builder = builder;
  }

  @Override
  public T get() {
    T built = value;
    if (built != null) {
      return built;
    }
    lock.lock();
    try {
      if (value == null) {
        value = builder.get();
      }
      return value;
    } finally {
      lock.unlock();
    }
  }

  /** Runs {@code action} on the value if it was built; never builds it. For closing what was opened. */
  public void ifBuilt(Consumer<T> action) {
    lock.lock();
    try {
      if (value != null) {
        action.accept(value);
      }
    } finally {
      lock.unlock();
    }
  }
}
