package dev.quarry.core.sort.extract;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Bytes held as a list of 256 KiB chunks: appending never copies what is already held (a ByteArrayOutputStream
 * doubles and copies as it grows, then copies once more to hand its bytes out), and any range can be read back.
 * Chunks stay under half a G1 region, so they are not humongous objects, which take a whole region each.
 */
final class ChunkedBytes extends OutputStream {
  private static final int CHUNK = 256 << 10;

  private final List<byte[]> chunks = new ArrayList<>();
  private long size;

  @Override
  public void write(int b) {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] buffer, int offset, int length) {
    int written = 0;
    while (written < length) {
      int inChunk = (int) (size % CHUNK);
      if (inChunk == 0) {
        chunks.add(new byte[CHUNK]);
      }
      int n = Math.min(length - written, CHUNK - inChunk);
      System.arraycopy(buffer, offset + written, chunks.get(chunks.size() - 1), inChunk, n);
      written += n;
      size += n;
    }
  }

  long size() {
    return size;
  }

  /** Copies [offset, offset + length) into a new array. */
  byte[] read(long offset, int length) {
    byte[] out = new byte[length];
    int copied = 0;
    while (copied < length) {
      long at = offset + copied;
      byte[] chunk = chunks.get((int) (at / CHUNK));
      int inChunk = (int) (at % CHUNK);
      int n = Math.min(length - copied, CHUNK - inChunk);
      System.arraycopy(chunk, inChunk, out, copied, n);
      copied += n;
    }
    return out;
  }

  void writeTo(Path file) throws IOException {
    try (OutputStream out = Files.newOutputStream(file)) {
      long left = size;
      for (byte[] chunk : chunks) {
        int n = (int) Math.min(CHUNK, left);
        out.write(chunk, 0, n);
        left -= n;
      }
    }
  }

  void clear() {
    chunks.clear();
    size = 0;
  }
}
