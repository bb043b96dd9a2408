package dev.quarry.core.store;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/** An upload to a {@link FileStore}: a temp file next to the target, fsynced and renamed over it on commit. */
final class FileUpload implements ObjectUpload {
  private static final int BUFFER_BYTES = 256 * 1024;

  private enum State { OPEN, COMMITTED, ABORTED }

  private final FileStore store;
  private final String key;
  private final Path target;
  private final Path temp;
  private final FileChannel channel;
  private final UploadStream stream;
  private State state = State.OPEN;

  FileUpload(FileStore store, String key, Path target, Path temp, FileChannel channel) {
    this.store = store;
    this.key = key;
    this.target = target;
    this.temp = temp;
    this.channel = channel;
    this.stream = new UploadStream();
  }

  @Override
  public OutputStream stream() {
    return stream;
  }

  @Override
  public ObjectInfo commit() throws IOException {
    requireOpen("commit");
    try {
      stream.flush();
    } catch (IOException e) {
      throw abortAfter(e); // already names the URL
    }
    try {
      store.force(channel);
      channel.close();
      store.countUploadCommit();
      store.publish(temp, target);
      state = State.COMMITTED;
      return store.info(key, Files.readAttributes(target, BasicFileAttributes.class));
    } catch (IOException e) {
      throw abortAfter(store.failure("write", key, e));
    }
  }

  /** Aborts after a failure (nothing to do once the file was renamed) and returns the failure to throw. */
  private IOException abortAfter(IOException failure) {
    try {
      abort();
    } catch (IOException e) {
      failure.addSuppressed(e);
    }
    return failure;
  }

  @Override
  public void abort() throws IOException {
    if (state != State.OPEN) {
      return;
    }
    state = State.ABORTED;
    try {
      channel.close();
      Files.deleteIfExists(temp);
    } catch (IOException e) {
      throw store.failure("abort the upload of", key, e);
    }
  }

  @Override
  public void close() throws IOException {
    abort();
  }

  private void requireOpen(String action) throws IOException {
    if (state != State.OPEN) {
      throw new IOException("Cannot " + action + " " + store.url(key) + ": the upload was already "
          + (state == State.COMMITTED ? "committed" : "aborted"));
    }
  }

  /**
   * Buffers writes for the temp file. Closing it does nothing, since only commit and abort end the upload; so does a
   * flush with nothing buffered, so that wrappers closed after the commit do not fail.
   */
  private final class UploadStream extends OutputStream {
    private final byte[] buffer = new byte[BUFFER_BYTES];
    private int filled;

    @Override
    public void write(int b) throws IOException {
      requireOpen("write");
      if (filled == buffer.length) {
        drain();
      }
      buffer[filled++] = (byte) b;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      Objects.checkFromIndexSize(offset, length, bytes.length);
      requireOpen("write");
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
        requireOpen("write");
        drain();
      }
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

    @Override
    public void close() {}
  }
}
