package dev.quarry.core.store;

import dev.quarry.core.memory.JdkIoBuffers;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Objects;

/**
 * Bytes [position, end) of an open file, read with positional reads; closing it closes the file, unless the file is
 * shared ({@link #sharing}).
 */
public final class FileRangeStream extends InputStream {
  private final FileChannel channel;
  private final String url;
  private final long end;
  private final boolean closesChannel;
  private long position;

  /** Bytes [offset, end) of {@code channel}, named {@code url} in errors; closing the stream closes the channel. */
  public FileRangeStream(FileChannel channel, String url, long offset, long end) {
    this(channel, url, offset, end, true);
  }

  private FileRangeStream(FileChannel channel, String url, long offset, long end, boolean closesChannel) {
    this.channel = channel;
    this.url = url;
    this.position = offset;
    this.end = end;
    this.closesChannel = closesChannel;
  }

  /**
   * Bytes [offset, end) of {@code channel}, which its owner keeps open for many such streams at once (positional
   * reads share it safely) and closes itself: an open, an fstat and a close per record cost more than its read.
   */
  public static FileRangeStream sharing(FileChannel channel, String url, long offset, long end) {
    return new FileRangeStream(channel, url, offset, end, false);
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    Objects.checkFromIndexSize(offset, length, buffer.length);
    if (position >= end) {
      return -1;
    }
    if (length == 0) {
      return 0;
    }
    // In slices, so that the JDK's temporary direct buffer for a heap array is the one it keeps (JdkIoBuffers).
    int wanted = JdkIoBuffers.slice(Math.min(length, end - position));
    int read = channel.read(ByteBuffer.wrap(buffer, offset, wanted), position);
    if (read < 0) {
      throw new EOFException("Cannot read " + url + ": the file ended at byte " + position + " instead of " + end
          + " (it shrank while being read)");
    }
    position += read;
    return read;
  }

  @Override
  public long skip(long count) {
    long skipped = Math.max(0, Math.min(count, end - position));
    position += skipped;
    return skipped;
  }

  @Override
  public int available() {
    return (int) Math.min(end - position, Integer.MAX_VALUE);
  }

  @Override
  public void close() throws IOException {
    if (closesChannel) {
      channel.close();
    }
  }
}
