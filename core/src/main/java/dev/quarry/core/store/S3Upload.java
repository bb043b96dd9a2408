package dev.quarry.core.store;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * A streaming upload to S3. Bytes collect in a part buffer; once it is full and more bytes come, the multipart upload
 * is created (on the first part) and the part is sent in the background, while the caller goes on writing into a
 * fresh buffer. At most {@value #PARTS_IN_FLIGHT} parts are in flight, and the writer waits for one to finish beyond
 * that, so memory stays at about {@value #PARTS_IN_FLIGHT} + 1 parts. An object that fits in one part is sent as one
 * PutObject on commit, with a buffer that grows only as needed. Any failure, abort, or close without commit aborts
 * the multipart upload, after waiting for the parts in flight, so that none of them is left stored.
 *
 * <p>One thread writes and commits; only the part uploads run elsewhere.
 */
final class S3Upload implements ObjectUpload {
  static final int PARTS_IN_FLIGHT = 4;
  private static final int FIRST_BUFFER_BYTES = 64 * 1024;

  private final S3Store store;
  private final String key;
  private final String url;
  private final PartSizes partSizes;
  private int partSize;
  private final ExecutorService partUploads;
  private final Semaphore partsInFlight = new Semaphore(PARTS_IN_FLIGHT);
  private final ConcurrentLinkedQueue<byte[]> spareBuffers = new ConcurrentLinkedQueue<>();
  private final List<Future<CompletedPart>> parts = new ArrayList<>();
  private final PartStream stream = new PartStream();
  private byte[] buffer = new byte[0];
  private int filled;
  private long size;
  private String uploadId;
  private volatile Throwable partFailure;
  private final UploadState state;

  /** About the most an upload of {@code size} bytes in parts of {@code sizes} holds at once ({@code PartStream}). */
  static long bufferBytes(long size, PartSizes sizes) {
    int first = sizes.ofPart(1);
    if (size <= first) {
      long grown = Math.min(first, Long.highestOneBit(Math.max(size, FIRST_BUFFER_BYTES) - 1) << 1);
      return grown + grown / 2;
    }
    int parts = 0;
    for (long left = size; left > 0 && parts < sizes.maxParts(); left -= sizes.ofPart(parts)) {
      parts++;
    }
    return (long) Math.min(PARTS_IN_FLIGHT + 1, parts) * sizes.ofPart(parts);
  }

  S3Upload(S3Store store, String key, PartSizes partSizes, ExecutorService partUploads) {
    this.store = store;
    this.key = key;
    this.url = store.url(key);
    this.state = new UploadState(url);
    this.partSizes = partSizes;
    this.partSize = partSizes.ofPart(1);
    this.partUploads = partUploads;
  }

  @Override
  public OutputStream stream() {
    return stream;
  }

  @Override
  public ObjectInfo commit() throws IOException {
    state.requireOpen("commit");
    try {
      String etag;
      if (uploadId == null) {
        etag = store.putBytes(key, buffer, filled);
      } else {
        if (filled > 0) { // a streamed upload's last part (parts sent from ranges leave nothing here)
          sendPart();
        }
        etag = store.completeMultipartUpload(key, uploadId, awaitParts());
      }
      state.committed();
      releaseBuffers();
      return new ObjectInfo(key, size, etag, Instant.now());
    } catch (IOException e) {
      throw abortedAfter(e);
    }
  }

  @Override
  public void abort() throws IOException {
    if (!state.abort()) {
      return;
    }
    releaseBuffers();
    if (uploadId == null) {
      return;
    }
    // An interrupted thread could send nothing (the SDK checks the flag before each request), leaving the upload's
    // parts stored: abort with the flag cleared, and set it again afterwards.
    boolean interrupted = Thread.interrupted();
    try {
      try {
        awaitParts();
      } catch (IOException | RuntimeException failedPartsAreAbortedToo) {
        // The abort below removes whatever they stored.
      } finally {
        store.abortMultipartUpload(key, uploadId);
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void close() throws IOException {
    abort();
  }

  /**
   * Sends bytes [offset, offset + length) of {@code content} as the next part, in the background, read from where
   * they lie: an upload whose every part is sent so ({@code S3Store#put(String, RangedContent)}) holds none in
   * memory. Not after bytes written to the stream, whose part would then follow this one.
   */
  void sendRange(RangedContent content, long offset, long length) throws IOException {
    state.requireOpen("write");
    if (filled > 0) {
      throw new IllegalStateException("A part from a range after bytes written to the stream of " + url);
    }
    try {
      submitPart(number -> store.uploadPart(key, uploadId, number, content, offset, length));
      size += length;
    } catch (IOException e) {
      throw abortedAfter(e);
    }
  }

  /** Hands the full buffer to a background upload. */
  private void sendPart() throws IOException {
    byte[] data = buffer;
    int length = filled;
    submitPart(number -> {
      try {
        return store.uploadPart(key, uploadId, number, data, length);
      } finally {
        spareBuffers.offer(data);
      }
    });
    partSize = partSizes.ofPart(parts.size() + 1);
    buffer = takeBuffer();
    filled = 0;
  }

  /** Sends a part, whose etag {@code send} returns, in the background; creates the multipart upload first if needed. */
  private void submitPart(PartSend send) throws IOException {
    throwIfPartFailed();
    if (uploadId == null) {
      uploadId = store.createMultipartUpload(key);
    }
    int number = parts.size() + 1;
    if (number > partSizes.maxParts()) {
      throw new IOException("Cannot write " + url + ": the object is larger than " + partSizes.maxObjectBytes()
          + " bytes, the most " + partSizes.maxParts() + " parts from " + partSizes.firstBytes() + " bytes hold"
          + " (raise the part size)");
    }
    try {
      partsInFlight.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Cannot write " + url + ": interrupted while waiting for a part to finish");
    }
    parts.add(partUploads.submit(() -> uploadPart(number, send)));
  }

  /** Sends part {@code number} and returns its etag. */
  @FunctionalInterface
  private interface PartSend {
    String etag(int number) throws IOException;
  }

  private CompletedPart uploadPart(int number, PartSend send) throws IOException {
    try {
      return CompletedPart.builder().partNumber(number).eTag(send.etag(number)).build();
    } catch (IOException | RuntimeException e) {
      partFailure = e;
      throw e;
    } finally {
      partsInFlight.release();
    }
  }

  /** A buffer of the current part size: a spare one of an earlier, smaller size is dropped. */
  private byte[] takeBuffer() {
    for (byte[] spare = spareBuffers.poll(); spare != null; spare = spareBuffers.poll()) {
      if (spare.length == partSize) {
        return spare;
      }
    }
    return new byte[partSize];
  }

  private void throwIfPartFailed() throws IOException {
    Throwable failure = partFailure;
    if (failure != null) {
      throw new IOException(failure.getMessage(), failure);
    }
  }

  /** Waits for every part, in order, and returns them for the completion. */
  private List<CompletedPart> awaitParts() throws IOException {
    List<CompletedPart> completed = new ArrayList<>(parts.size());
    IOException failure = null;
    for (Future<CompletedPart> part : parts) {
      try {
        completed.add(part.get());
      } catch (ExecutionException e) {
        if (failure == null) {
          failure = e.getCause() instanceof IOException io ? new IOException(io.getMessage(), io)
              : new IOException("Cannot write " + url + ": " + e.getCause(), e.getCause());
        }
      } catch (InterruptedException e) {
        // The parts go on (interrupting them would close the files they read, which other readers share); the
        // abort that follows waits for them, then removes them.
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("Cannot write " + url + ": interrupted while waiting for its parts");
      }
    }
    if (failure != null) {
      throw failure;
    }
    return completed;
  }

  private void releaseBuffers() {
    buffer = new byte[0];
    filled = 0;
    spareBuffers.clear();
  }

  /**
   * Collects the bytes of the current part. A full part is sent only when the next byte arrives, so that an object of
   * exactly one part is still a single PutObject. Closing it does nothing: only commit and abort end the upload.
   */
  private final class PartStream extends OutputStream {
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
          if (filled == partSize) {
            sendPart();
          }
          if (filled == buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.min(partSize, Math.max(FIRST_BUFFER_BYTES, buffer.length * 2)));
          }
          int copied = Math.min(length, buffer.length - filled);
          System.arraycopy(bytes, offset, buffer, filled, copied);
          filled += copied;
          size += copied;
          offset += copied;
          length -= copied;
        }
      } catch (IOException e) {
        throw abortedAfter(e);
      }
    }

    @Override
    public void close() {}
  }
}
