package dev.quarry.core.archive.tar;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** A buffered input that knows how many bytes it has consumed. */
final class CountingInput {
  /** The buffer: what a fill reads while bytes are read one after another. */
  static final int BUFFER_BYTES = 1 << 16;
  /** What the first fill after a long skip reads ({@link ReadAhead}), and what a skip must pass to be long. */
  static final int READ_AFTER_A_LONG_SKIP = 1 << 13;

  private final InputStream in;
  private long position;

  CountingInput(InputStream in) {
    this.in = new BufferedInputStream(new ReadAhead(in), BUFFER_BYTES);
  }

  /**
   * Reads of at most {@link #READ_AFTER_A_LONG_SKIP} bytes after a skip of more than that past the buffer, doubling
   * with each read up to the buffer: the data of a large member was just skipped, so the next fill needs its next
   * header and the small members after it, not 64 KiB of the next large member's data, which is skipped next. Over a
   * local file a skip is a seek, and extract reads about 8 KiB of each record of 100 KiB (it read 64 KiB of each, 63%
   * of the input); where skipping reads the bytes anyway (a stream from S3, a copy), only the reads' sizes change.
   * Skips of small members pass at most a few KiB past the buffer, so their fills stay whole.
   */
  private static final class ReadAhead extends FilterInputStream {
    private int window = BUFFER_BYTES;

    ReadAhead(InputStream in) {
      super(in);
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int read = in.read(buffer, offset, Math.min(length, window));
      window = Math.min(BUFFER_BYTES, window * 2);
      return read;
    }

    @Override
    public long skip(long count) throws IOException {
      long skipped = in.skip(count);
      if (skipped > READ_AFTER_A_LONG_SKIP) {
        window = READ_AFTER_A_LONG_SKIP;
      }
      return skipped;
    }
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
