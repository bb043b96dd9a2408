package dev.quarry.core.store;

import java.io.IOException;
import java.io.OutputStream;

/**
 * An object being written by one thread. Nothing is visible under the key until {@link #commit()}; {@link #abort()},
 * or {@link #close()} without a commit, leaves nothing behind. Typical use:
 *
 * <pre>{@code
 * try (ObjectUpload upload = store.upload(key)) {
 *   writeTo(upload.stream());
 *   upload.commit();
 * }
 * }</pre>
 */
public interface ObjectUpload extends AutoCloseable {
  /**
   * Where the object's bytes go; buffered, and the same stream on every call. Closing it does not commit. Failures of
   * work already handed to the store surface here, on a later write, as an IOException naming the object's URL.
   */
  OutputStream stream();

  /**
   * Makes the object visible and returns its info (size and etag as the store reports them; lastModified is the
   * store's when the commit reports it, else this machine's clock at the commit). On failure the upload is aborted.
   */
  ObjectInfo commit() throws IOException;

  /** Discards everything written; does nothing when already aborted or committed. */
  void abort() throws IOException;

  /** Aborts unless committed. */
  @Override
  void close() throws IOException;

  /**
   * Aborts after {@code failure} and returns it to throw, with a failure of the abort itself suppressed in it: the
   * first failure is the one that says what went wrong.
   */
  default <E extends Exception> E abortedAfter(E failure) {
    try {
      abort();
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
    return failure;
  }
}
