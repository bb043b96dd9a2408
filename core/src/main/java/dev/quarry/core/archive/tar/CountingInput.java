package dev.quarry.core.archive.tar;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/** A buffered input that knows how many bytes it has consumed. */
final class CountingInput {
  private final InputStream in;
  private long position;

  CountingInput(InputStream in) {
    this.in = new BufferedInputStream(in, 1 << 16);
  }

  long position() {
    return position;
  }

  /** Fills {@code buffer}; returns false on end of stream before the first byte, throws EOF after it. */
  boolean readBlock(byte[] buffer) throws IOException {
    int read = in.readNBytes(buffer, 0, buffer.length);
    position += read;
    if (read == 0) {
      return false;
    }
    if (read < buffer.length) {
      throw new EOFException();
    }
    return true;
  }

  int read(byte[] buffer, int offset, int length) throws IOException {
    int read = in.read(buffer, offset, length);
    if (read > 0) {
      position += read;
    }
    return read;
  }

  void skipFully(long count) throws IOException {
    long remaining = count;
    while (remaining > 0) {
      long skipped = in.skip(remaining);
      if (skipped <= 0) {
        if (in.read() < 0) {
          throw new EOFException();
        }
        skipped = 1;
      }
      remaining -= skipped;
      position += skipped;
    }
  }

  void close() throws IOException {
    in.close();
  }
}
