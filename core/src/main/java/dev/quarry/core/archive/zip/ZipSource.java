package dev.quarry.core.archive.zip;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The shard's bytes as the zip parser reads them. It marks failures of the source so they are never mistaken for
 * corrupt data, caps how far reads may go (the parser buffers a stored member with a data descriptor whole), and can
 * keep the bytes read from a point on: the central directory, which the parser reads past at the end of the stream
 * without exposing, is checked from them.
 */
final class ZipSource extends InputStream {
  /**
   * How many bytes before the point where the parser starts looking for an entry are kept: its pushback buffer
   * (512 bytes) may hold bytes read earlier that come after that point, such as the start of the central directory.
   */
  static final int LOOKBEHIND = 2048;
  /** The most bytes kept from a point on; a central directory this large is ~500,000 entries. */
  static final int MAX_KEPT = 64 << 20;

  private final InputStream in;
  private final byte[] ring = new byte[LOOKBEHIND];
  private final byte[] single = new byte[1];
  private long position;
  private long limit = Long.MAX_VALUE;
  private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
  private boolean keeping;
  private boolean keptTooMuch;

  ZipSource(InputStream in) {
    this.in = new BufferedInputStream(in, 1 << 16);
  }

  /** Refuses reads past {@code bytes} from the current position with {@link ReadLimitReached}. */
  void limitReads(long bytes) {
    limit = position + bytes;
  }

  void unlimitReads() {
    limit = Long.MAX_VALUE;
  }

  /** Starts keeping every byte read from now on, plus the {@link #LOOKBEHIND} bytes read last. */
  void startKeeping() {
    kept.reset();
    keeping = true;
    keptTooMuch = false;
    int behind = (int) Math.min(position, LOOKBEHIND);
    int start = (int) ((position - behind) % LOOKBEHIND);
    int firstChunk = Math.min(behind, LOOKBEHIND - start);
    kept.write(ring, start, firstChunk);
    kept.write(ring, 0, behind - firstChunk);
  }

  void stopKeeping() {
    keeping = false;
  }

  /** The bytes kept since {@link #startKeeping()}, or null if they grew past {@link #MAX_KEPT}. */
  byte[] kept() {
    return !keeping || keptTooMuch ? null : kept.toByteArray();
  }

  @Override
  public int read() throws IOException {
    return read(single, 0, 1) < 0 ? -1 : single[0] & 0xff;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    if (position >= limit) {
      throw new ReadLimitReached();
    }
    int read;
    try {
      read = in.read(buffer, offset, (int) Math.min(length, limit - position));
    } catch (IOException e) {
      throw new SourceFailure(e);
    }
    if (read > 0) {
      remember(buffer, offset, read);
      position += read;
    }
    return read;
  }

  private void remember(byte[] buffer, int offset, int length) {
    if (keeping && !keptTooMuch) {
      if (kept.size() + (long) length > MAX_KEPT) {
        keptTooMuch = true;
        kept.reset();
      } else {
        kept.write(buffer, offset, length);
      }
    }
    int count = Math.min(length, LOOKBEHIND);
    int from = offset + length - count;
    long at = position + length - count;
    while (count > 0) {
      int index = (int) (at % LOOKBEHIND);
      int chunk = Math.min(count, LOOKBEHIND - index);
      System.arraycopy(buffer, from, ring, index, chunk);
      from += chunk;
      at += chunk;
      count -= chunk;
    }
  }

  @Override
  public void close() throws IOException {
    in.close();
  }

  /** A failure of the source itself (a network error, say), passed through unchanged by the reader. */
  static final class SourceFailure extends IOException {
    SourceFailure(IOException cause) {
      super(cause);
    }

    @Override
    public synchronized IOException getCause() {
      return (IOException) super.getCause();
    }
  }

  /** A read went past the limit set with {@link #limitReads(long)}. */
  static final class ReadLimitReached extends IOException {
    ReadLimitReached() {
      super("read limit reached");
    }
  }
}
