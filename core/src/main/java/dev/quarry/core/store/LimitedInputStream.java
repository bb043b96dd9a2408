package dev.quarry.core.store;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The body of an object that may be at most {@code limit} bytes, as its digest or its kind declares: reads pass
 * through until the limit, and the first byte past it is an {@link TooLargeException} instead. So at most
 * {@code limit + 1} bytes are ever read from an untrusted object, whatever it really holds; closing early aborts the
 * rest of an S3 response rather than draining it.
 */
public final class LimitedInputStream extends FilterInputStream {
  /** The object held more bytes than its limit. */
  public static final class TooLargeException extends IOException {
    public TooLargeException(String message) {
      super(message);
    }
  }

  private final long limit;
  private final String tooLarge;
  private long position;

  /** {@code tooLarge}: the message of the exception thrown at the first byte past {@code limit}. */
  public LimitedInputStream(InputStream in, long limit, String tooLarge) {
    super(in);
    this.limit = limit;
    this.tooLarge = tooLarge;
  }

  @Override
  public int read() throws IOException {
    if (position == limit) {
      requireEnd();
      return -1;
    }
    int b = in.read();
    if (b >= 0) {
      position++;
    }
    return b;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    if (position == limit) {
      requireEnd();
      return -1;
    }
    int read = in.read(buffer, offset, (int) Math.min(length, limit - position));
    if (read > 0) {
      position += read;
    }
    return read;
  }

  @Override
  public long skip(long n) throws IOException {
    long skipped = in.skip(Math.min(n, limit - position));
    position += skipped;
    return skipped;
  }

  @Override
  public boolean markSupported() {
    return false;
  }

  private void requireEnd() throws IOException {
    if (in.read() >= 0) {
      throw new TooLargeException(tooLarge);
    }
  }
}
