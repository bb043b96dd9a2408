package dev.quarry.core.store;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * An upload to a {@link FileStore}: a temp file next to the target, fsynced and renamed over it on commit. Given a
 * {@link DirectWriteBuffers} buffer, it writes whole buffers with O_DIRECT ({@link DirectStream}).
 */
final class FileUpload implements ObjectUpload {
  private static final int BUFFER_BYTES = 256 * 1024;

  private final FileStore store;
  private final String key;
  private final Path target;
  private final Path temp;
  private final FileChannel channel;
  private final FinishingStream stream;
  private final UploadState state;

  /** {@code directBuffer}: an aligned direct buffer to write whole blocks through with O_DIRECT, or null. */
  FileUpload(FileStore store, String key, Path target, Path temp, FileChannel channel, ByteBuffer directBuffer) {
    this.store = store;
    this.key = key;
    this.state = new UploadState(store.url(key));
    this.target = target;
    this.temp = temp;
    this.channel = channel;
    this.stream = directBuffer == null ? new UploadStream() : new DirectStream(directBuffer);
  }

  /** {@code buffer}, if O_DIRECT can write from it: checked before the upload makes its temp file. */
  static ByteBuffer checkDirectBuffer(ByteBuffer buffer) {
    if (!buffer.isDirect() || buffer.capacity() % DirectWriteBuffers.ALIGNMENT != 0
        || buffer.alignmentOffset(0, DirectWriteBuffers.ALIGNMENT) != 0) {
      throw new IllegalArgumentException("Invalid direct write buffer: " + buffer + " (must be direct and aligned"
          + " to " + DirectWriteBuffers.ALIGNMENT + " bytes in address and size: one of DirectWriteBuffers)");
    }
    return buffer;
  }

  @Override
  public OutputStream stream() {
    return stream;
  }

  @Override
  public ObjectInfo commit() throws IOException {
    state.requireOpen("commit");
    try {
      stream.finish();
    } catch (IOException e) {
      throw abortedAfter(e); // already names the URL
    }
    try {
      store.force(channel);
      stream.closeChannels();
      store.countUploadCommit();
      store.publish(temp, target);
      state.committed();
      return store.info(key, Files.readAttributes(target, BasicFileAttributes.class));
    } catch (IOException e) {
      throw abortedAfter(store.failure("write", key, e));
    }
  }

  @Override
  public void abort() throws IOException {
    if (!state.abort()) {
      return;
    }
    try {
      stream.closeChannels();
      Files.deleteIfExists(temp);
    } catch (IOException e) {
      throw store.failure("abort the upload of", key, e);
    }
  }

  @Override
  public void close() throws IOException {
    abort();
  }

  /** The upload's stream: closing it does nothing, since only commit and abort end the upload. */
  private abstract class FinishingStream extends OutputStream {
    /** Writes what is still buffered, before the commit's fsync. */
    abstract void finish() throws IOException;

    /** Closes the temp file's channels. */
    void closeChannels() throws IOException {
      channel.close();
    }

    void writeFully(FileChannel target, ByteBuffer bytes, long position) throws IOException {
      try {
        for (long at = position; bytes.hasRemaining(); ) {
          at += target.write(bytes, at);
        }
      } catch (IOException e) {
        throw store.failure("write", key, e);
      }
    }

    @Override
    public void close() {}
  }

  /**
   * Buffers writes for the temp file in the heap. A flush with nothing buffered does nothing, so that wrappers closed
   * after the commit do not fail.
   */
  private final class UploadStream extends FinishingStream {
    private final byte[] buffer = new byte[BUFFER_BYTES];
    private int filled;

    @Override
    public void write(int b) throws IOException {
      state.requireOpen("write");
      if (filled == buffer.length) {
        drain();
      }
      buffer[filled++] = (byte) b;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      Objects.checkFromIndexSize(offset, length, bytes.length);
      state.requireOpen("write");
      if (length > buffer.length - filled) {
        drain();
      }
      if (length >= buffer.length) {
        writeFully(ByteBuffer.wrap(bytes, offset, length));
      } else {
        System.arraycopy(bytes, offset, buffer, filled, length);
        filled += length;
      }
    }

    @Override
    public void flush() throws IOException {
      if (filled > 0) {
        state.requireOpen("write");
        drain();
      }
    }

    @Override
    void finish() throws IOException {
      flush();
    }

    private void drain() throws IOException {
      writeFully(ByteBuffer.wrap(buffer, 0, filled));
      filled = 0;
    }

    private void writeFully(ByteBuffer bytes) throws IOException {
      try {
        while (bytes.hasRemaining()) {
          channel.write(bytes);
        }
      } catch (IOException e) {
        throw store.failure("write", key, e);
      }
    }
  }

  /**
   * Gathers writes in an aligned direct buffer and writes each full one with O_DIRECT at the next position (a
   * multiple of the buffer's size, so aligned too); the last, partial buffer goes through the page cache on commit,
   * as everything does when the file system refuses O_DIRECT. A flush writes nothing: the bytes need only be in the
   * file by the commit, and a partial block written early would leave the next writes unaligned.
   */
  private final class DirectStream extends FinishingStream {
    private final ByteBuffer buffer;
    /** Opened at the first full buffer, so that small files never wait on the disk; null until then or if refused. */
    private FileChannel direct;
    private boolean directRefused;
    private long written;

    DirectStream(ByteBuffer buffer) {
      this.buffer = checkDirectBuffer(buffer).clear();
    }

    @Override
    public void write(int b) throws IOException {
      state.requireOpen("write");
      if (!buffer.hasRemaining()) {
        drainFull();
      }
      buffer.put((byte) b);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      Objects.checkFromIndexSize(offset, length, bytes.length);
      state.requireOpen("write");
      while (length > 0) {
        if (!buffer.hasRemaining()) {
          drainFull();
        }
        int n = Math.min(length, buffer.remaining());
        buffer.put(bytes, offset, n);
        offset += n;
        length -= n;
      }
    }

    @Override
    public void flush() {}

    private void drainFull() throws IOException {
      buffer.flip();
      FileChannel target = directChannel();
      if (target != null) {
        try {
          for (long at = written; buffer.hasRemaining(); ) {
            at += target.write(buffer, at);
          }
        } catch (IOException refused) {
          // EINVAL from a file system that opens with O_DIRECT but cannot write so: the page cache then, as for the
          // tail (a real I/O error fails there again, with its reason).
          directRefused = true;
          buffer.rewind();
        }
      }
      writeFully(channel, buffer, written + buffer.position());
      written += buffer.limit();
      buffer.clear();
    }

    /** The temp file opened with O_DIRECT, or null when its file system does not take it. */
    private FileChannel directChannel() {
      if (direct == null && !directRefused) {
        try {
          if (DirectWriteBuffers.ALIGNMENT % Files.getFileStore(temp).getBlockSize() == 0) {
            direct = FileChannel.open(temp, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT);
          } else {
            directRefused = true;
          }
        } catch (IOException | UnsupportedOperationException refused) {
          directRefused = true; // tmpfs before Linux 6.6, for one: the page cache it is
        }
      }
      return directRefused ? null : direct;
    }

    @Override
    void finish() throws IOException {
      buffer.flip();
      writeFully(channel, buffer, written);
      written += buffer.limit();
      buffer.clear();
    }

    @Override
    void closeChannels() throws IOException {
      try (FileChannel closing = direct) {
        channel.close();
      }
    }
  }
}
