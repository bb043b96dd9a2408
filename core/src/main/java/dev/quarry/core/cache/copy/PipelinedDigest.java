package dev.quarry.core.cache.copy;

import java.security.MessageDigest;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Hashes buffers on a second thread while the caller goes on copying, so a copy takes about as long as the slower of
 * its I/O and its hashing instead of their sum. Buffers come from a small pool and go back once hashed.
 */
final class PipelinedDigest implements AutoCloseable {
  private static final int BUFFERS = 4;
  private static final byte[] END = new byte[0];

  private final MessageDigest digest;
  private final BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(BUFFERS);
  private final BlockingQueue<byte[]> full = new ArrayBlockingQueue<>(BUFFERS);
  private final BlockingQueue<Integer> lengths = new ArrayBlockingQueue<>(BUFFERS);
  private final Thread hasher;

  PipelinedDigest(MessageDigest digest, int bufferSize) {
    this.digest = digest;
    for (int i = 0; i < BUFFERS; i++) {
      free.add(new byte[bufferSize]);
    }
    hasher = Thread.ofVirtual().name("cache-copy-hash").start(this::hashUntilEnd);
  }

  /** A buffer to fill; hand it back with {@link #submit}. */
  byte[] take() throws InterruptedException {
    return free.take();
  }

  /** Hashes the first {@code length} bytes of {@code buffer} in the background, then recycles it. */
  void submit(byte[] buffer, int length) throws InterruptedException {
    lengths.put(length);
    full.put(buffer);
  }

  /** Gives back a buffer that was taken but not filled. */
  void giveBack(byte[] buffer) {
    free.add(buffer);
  }

  /** Waits until every submitted buffer is hashed, and returns the digest. */
  byte[] finish() throws InterruptedException {
    lengths.put(0);
    full.put(END);
    hasher.join();
    return digest.digest();
  }

  private void hashUntilEnd() {
    try {
      while (true) {
        byte[] buffer = full.take();
        int length = lengths.take();
        if (buffer == END) {
          return;
        }
        digest.update(buffer, 0, length);
        free.put(buffer);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    hasher.interrupt();
  }
}
