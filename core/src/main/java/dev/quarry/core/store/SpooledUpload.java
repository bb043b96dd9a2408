package dev.quarry.core.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * An upload whose bytes go to a local file as they are written and reach the store from there
 * ({@link ObjectStore#spooledUpload}). The file is read back by the requests that send it, so the upload holds no
 * more than its write buffer in memory; to S3, parts go while the caller writes (the file is told each time it grew),
 * where a file sent only once whole made the caller wait for all of it. The file is deleted when the upload ends.
 *
 * <p>One thread writes and commits; only the sending of parts runs elsewhere, reading the file's open channel with
 * positional reads while it grows.
 */
final class SpooledUpload implements ObjectUpload {
  private static final int BUFFER_BYTES = 256 * 1024;

  /** How the bytes in the file reach the store. */
  interface Sending {
    /** The file now holds {@code content}; parts of it may be sent, read from it when their requests go. */
    void grown(RangedContent content) throws IOException;

    /** The file is whole as {@code content}: makes the object visible, all of it sent. */
    ObjectInfo commit(RangedContent content) throws IOException;

    /** Discards what was sent, after any part in flight ends (it reads the file, open until then). */
    void abort() throws IOException;
  }

  private final Path file;
  private final FileChannel channel;
  private final Sending sending;
  private final byte[] buffer = new byte[BUFFER_BYTES];
  private final OutputStream stream = new SpoolStream();
  private int filled;
  private long written;
  private final UploadState state;

  SpooledUpload(String url, Path file, Sending sending) throws IOException {
    this.state = new UploadState(url);
    this.file = file;
    this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE, StandardOpenOption.READ);
    this.sending = sending;
  }

  /** A spooled upload to {@code store} that streams the whole file to it on commit, for stores without parts. */
  static SpooledUpload sentOnCommit(ObjectStore store, String key, Path file) throws IOException {
    String url = store.url(key);
    return new SpooledUpload(url, file, new Sending() {
      @Override
      public void grown(RangedContent content) {}

      @Override
      public ObjectInfo commit(RangedContent content) throws IOException {
        try (ObjectUpload upload = store.upload(key); InputStream in = content.open(0, content.length())) {
          in.transferTo(upload.stream());
          return upload.commit();
        }
      }

      @Override
      public void abort() {}
    });
  }

  @Override
  public OutputStream stream() {
    return stream;
  }

  @Override
  public ObjectInfo commit() throws IOException {
    state.requireOpen("commit");
    try {
      flushBuffer();
      ObjectInfo committed = sending.commit(content());
      state.committed();
      release();
      return committed;
    } catch (IOException | RuntimeException e) {
      abortAfter(e);
      throw e;
    }
  }

  @Override
  public void abort() throws IOException {
    if (!state.abort()) {
      return;
    }
    try {
      sending.abort();
    } finally {
      release();
    }
  }

  @Override
  public void close() throws IOException {
    abort();
  }

  private void abortAfter(Exception failure) {
    try {
      abort();
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /** The file's bytes so far, read through the channel this upload keeps open until it ends. */
  private RangedContent content() {
    return RangedContent.of(channel, file.toString(), written);
  }

  private void flushBuffer() throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap(buffer, 0, filled);
    while (bytes.hasRemaining()) {
      channel.write(bytes, written + bytes.position());
    }
    written += filled;
    filled = 0;
  }

  private void release() throws IOException {
    try {
      channel.close();
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /** Fills the buffer; each full one goes to the file, and the sending is told the file grew. */
  private final class SpoolStream extends OutputStream {
    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      Objects.checkFromIndexSize(offset, length, bytes.length);
      state.requireOpen("write");
      try {
        while (length > 0) {
          int copied = Math.min(length, buffer.length - filled);
          System.arraycopy(bytes, offset, buffer, filled, copied);
          filled += copied;
          offset += copied;
          length -= copied;
          if (filled == buffer.length) {
            flushBuffer();
            sending.grown(content());
          }
        }
      } catch (IOException | RuntimeException e) {
        abortAfter(e);
        throw e;
      }
    }

    @Override
    public void close() {}
  }
}
