package dev.quarry.core.sort.records;

import dev.quarry.core.store.ObjectStore;
import java.io.IOException;
import java.io.InputStream;

/**
 * An object read a window at a time, each window one whole ranged GET: no request stays open between reads, so a
 * merge of many runs holds no pooled connection while it waits on its consumer (which may itself need connections
 * to upload what it made of them).
 */
final class WindowedRead extends InputStream {
  static final int WINDOW_BYTES = 1 << 20;

  private final ObjectStore store;
  private final String key;
  private final long size;
  private long position;
  private byte[] window = new byte[0];
  private int inWindow;

  /** The object {@code key}, whose first window and size {@code start} has read. */
  WindowedRead(ObjectStore store, String key, ObjectStore.ObjectStart start) {
    this.store = store;
    this.key = key;
    this.size = start.size();
    this.window = start.bytes();
    this.position = window.length;
  }

  @Override
  public int read() throws IOException {
    if (!fill()) {
      return -1;
    }
    return window[inWindow++] & 0xFF;
  }

  @Override
  public int read(byte[] target, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    if (!fill()) {
      return -1;
    }
    int n = Math.min(length, window.length - inWindow);
    System.arraycopy(window, inWindow, target, offset, n);
    inWindow += n;
    return n;
  }

  /** Makes sure the window has a byte left, reading the next one if needed; false at the end of the object. */
  private boolean fill() throws IOException {
    if (inWindow < window.length) {
      return true;
    }
    if (position >= size) {
      return false;
    }
    int length = (int) Math.min(WINDOW_BYTES, size - position);
    try (InputStream in = store.getRange(key, position, length)) {
      window = in.readNBytes(length);
    }
    if (window.length != length) {
      throw new IOException("Cannot read " + store.url(key) + ": it ended before " + length + " bytes at offset "
          + position);
    }
    position += length;
    inWindow = 0;
    return true;
  }
}
