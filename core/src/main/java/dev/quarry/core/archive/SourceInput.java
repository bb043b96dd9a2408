package dev.quarry.core.archive;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Wraps a shard's source stream so that its own failures (a network error, a closed connection) are thrown as
 * {@link SourceFailure}: a decoder reading through it can then tell them from corrupt data, and let them pass
 * through unchanged instead of calling the shard corrupt.
 */
public final class SourceInput extends FilterInputStream {
  public SourceInput(InputStream in) {
    super(in);
  }

  @Override
  public int read() throws IOException {
    try {
      return super.read();
    } catch (IOException e) {
      throw new SourceFailure(e);
    }
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    try {
      return super.read(b, off, len);
    } catch (IOException e) {
      throw new SourceFailure(e);
    }
  }

  /** A failure of the source stream itself; {@link #getCause()} is what the source threw. */
  public static final class SourceFailure extends IOException {
    SourceFailure(IOException cause) {
      super(cause);
    }

    @Override
    public synchronized IOException getCause() {
      return (IOException) super.getCause();
    }
  }
}
