package dev.quarry.core.store;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.http.Abortable;
import software.amazon.awssdk.retries.api.BackoffStrategy;

/**
 * The body of a GET that survives broken connections: when a read fails part-way, it waits (exponential backoff with
 * jitter) and asks again for the bytes from where it stopped. The SDK retries a request only until its response
 * starts; this covers the rest, which matters for shards of gigabytes. It gives up after {@code maxAttempts}
 * consecutive failures without progress, or once no byte came for {@code deadline}.
 */
final class ResumingInputStream extends InputStream {
  private static final Logger LOG = LoggerFactory.getLogger(ResumingInputStream.class);

  /** Opens the object's bytes [position, end). */
  @FunctionalInterface
  interface Source {
    InputStream open(long position) throws IOException;
  }

  private final String url;
  private final Source source;
  private final long end;
  private final int maxAttempts;
  private final BackoffStrategy backoff;
  private final Duration deadline;
  private long lastProgress = System.nanoTime();
  private InputStream current;
  private long position;
  private int failures;
  private boolean closed;

  /** Reads bytes [position, end), starting with the already open {@code first}. */
  ResumingInputStream(String url, InputStream first, long position, long end, Source source, int maxAttempts,
      BackoffStrategy backoff, Duration deadline) {
    this.deadline = deadline;
    this.url = url;
    this.current = first;
    this.position = position;
    this.end = end;
    this.source = source;
    this.maxAttempts = maxAttempts;
    this.backoff = backoff;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    Objects.checkFromIndexSize(offset, length, buffer.length);
    if (closed) {
      throw new IOException("Cannot read " + url + ": the stream is closed");
    }
    if (position >= end) {
      return -1;
    }
    if (length == 0) {
      return 0;
    }
    while (true) {
      try {
        int read = current.read(buffer, offset, (int) Math.min(length, end - position));
        if (read < 0) {
          throw new EOFException("the response ended at byte " + position + " of " + end);
        }
        position += read;
        failures = 0;
        lastProgress = System.nanoTime();
        return read;
      } catch (IOException e) {
        resumeAfter(e);
      }
    }
  }

  private void resumeAfter(IOException failure) throws IOException {
    failures++;
    abort(current);
    current = InputStream.nullInputStream();
    // A read timeout is what resuming is for; only a real interrupt stops it.
    boolean interrupted = S3Errors.isInterruption(failure);
    Duration delay = backoff.computeDelay(failures);
    if (Duration.ofNanos(System.nanoTime() - lastProgress).plus(delay).compareTo(deadline) > 0 && !interrupted) {
      throw new IOException("Cannot read " + url + ": no bytes came for " + deadline.toSeconds() + " s at byte "
          + position + " (" + failures + " attempts, the last: " + failure.getMessage() + "); check that the"
          + " endpoint is up and reachable from here, or allow more with QUARRY_S3_REQUEST_DEADLINE", failure);
    }
    if (failures >= maxAttempts || interrupted) {
      throw new IOException("Cannot read " + url + ": the connection failed " + failures + " times in a row at byte "
          + position + ": " + failure.getMessage(), failure);
    }
    LOG.debug("Resuming {} at byte {} in {} ms after: {}", url, position, delay.toMillis(), failure.toString());
    try {
      Thread.sleep(delay);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Cannot read " + url + ": interrupted while waiting to resume at byte "
          + position);
    }
    current = source.open(position);
  }

  @Override
  public long skip(long count) throws IOException {
    // Reading keeps resumption simple; callers that skip far use getRange instead.
    return super.skip(Math.min(count, end - position));
  }

  @Override
  public int available() throws IOException {
    return closed ? 0 : current.available();
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    if (position < end) {
      // Closing an unfinished response would drain the rest of it just to keep the connection.
      abort(current);
    } else {
      current.close();
    }
  }

  private static void abort(InputStream stream) {
    if (stream instanceof Abortable abortable) {
      abortable.abort();
    }
    try {
      stream.close();
    } catch (IOException ignored) {
      // The connection is gone; nothing to release.
    }
  }
}
