package dev.quarry.core.archive.tar;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Copies every byte read to another stream, skipped ones included: a {@link TarReader} over it passes over members'
 * data by skipping, and the copy still gets all of it (extract's pack of a tar, create's shard of checked records).
 */
public final class CopyingInput extends FilterInputStream {
  private final OutputStream copy;
  private final int skipBufferBytes;
  private byte[] skipBuffer;
  private long copied;

  /** Skips read through a buffer of {@code skipBufferBytes}, allocated at the first skip. */
  public CopyingInput(InputStream in, OutputStream copy, int skipBufferBytes) {
    super(in);
    this.copy = copy;
    this.skipBufferBytes = skipBufferBytes;
  }

  @Override
  public int read() throws IOException {
    int b = in.read();
    if (b >= 0) {
      copy.write(b);
      copied++;
    }
    return b;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    int read = in.read(buffer, offset, length);
    if (read > 0) {
      copy.write(buffer, offset, read);
      copied += read;
    }
    return read;
  }

  @Override
  public long skip(long n) throws IOException {
    if (skipBuffer == null) {
      skipBuffer = new byte[skipBufferBytes];
    }
    long skipped = 0;
    while (skipped < n) {
      int read = read(skipBuffer, 0, (int) Math.min(skipBuffer.length, n - skipped));
      if (read < 0) {
        break;
      }
      skipped += read;
    }
    return skipped;
  }

  /** The bytes copied so far. */
  public long copied() {
    return copied;
  }

  @Override
  public boolean markSupported() {
    return false; // a reset would copy the bytes again
  }
}
