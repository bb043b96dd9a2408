package dev.quarry.core.store;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * An object's bytes of a known length that can be read again from any offset, as local files can: an upload sends
 * each part straight from them ({@link ObjectStore#put(String, RangedContent)}), so it holds no part in memory, and a
 * part that failed is read again for its retry.
 */
public interface RangedContent {
  /** How many bytes the object has. */
  long length();

  /** Bytes [offset, offset + length): a fresh stream at each call, several of them at once. */
  InputStream open(long offset, long length) throws IOException;

  /** The bytes of {@code bytes}, not copied. */
  static RangedContent of(byte[] bytes) {
    return new RangedContent() {
      @Override
      public long length() {
        return bytes.length;
      }

      @Override
      public InputStream open(long offset, long length) {
        return new ByteArrayInputStream(bytes, (int) offset, (int) length);
      }
    };
  }

  /**
   * The file {@code file} as it is now; each stream opens it at its first read, so that a part read for a retry is
   * read afresh, and a stream an HTTP attempt made but never read (nor closed) holds no open file.
   */
  static RangedContent of(Path file) throws IOException {
    long size = Files.size(file);
    return new RangedContent() {
      @Override
      public long length() {
        return size;
      }

      @Override
      public InputStream open(long offset, long length) {
        return new InputStream() {
          private InputStream opened;

          @Override
          public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
          }

          @Override
          public int read(byte[] buffer, int at, int wanted) throws IOException {
            if (opened == null) {
              opened = new FileRangeStream(FileChannel.open(file, StandardOpenOption.READ), file.toString(), offset,
                  offset + length);
            }
            return opened.read(buffer, at, wanted);
          }

          @Override
          public void close() throws IOException {
            if (opened != null) {
              opened.close();
            }
          }
        };
      }
    };
  }

  /** The first {@code length} bytes of {@code channel}, which its owner keeps open while this is read. */
  static RangedContent of(FileChannel channel, String name, long length) {
    return new RangedContent() {
      @Override
      public long length() {
        return length;
      }

      @Override
      public InputStream open(long offset, long wanted) {
        return FileRangeStream.sharing(channel, name, offset, offset + wanted);
      }
    };
  }

  /** {@code pieces}, one after the other; a stream opens each piece only when it reaches it. */
  static RangedContent concat(List<RangedContent> pieces) {
    long[] starts = new long[pieces.size() + 1];
    for (int i = 0; i < pieces.size(); i++) {
      starts[i + 1] = starts[i] + pieces.get(i).length();
    }
    return new RangedContent() {
      @Override
      public long length() {
        return starts[pieces.size()];
      }

      @Override
      public InputStream open(long offset, long length) {
        // The last piece that starts at or before offset (pieces of no bytes are passed over as they come).
        int found = java.util.Arrays.binarySearch(starts, 0, pieces.size(), offset);
        int first = found >= 0 ? found : -found - 2;
        return new PiecesStream(Math.max(first, 0), offset, offset + length);
      }

      /** Bytes [position, end) across the pieces, each opened when the stream reaches it. */
      final class PiecesStream extends InputStream {
        private int piece;
        private long position;
        private final long end;
        private InputStream current;

        PiecesStream(int piece, long position, long end) {
          this.piece = piece;
          this.position = position;
          this.end = end;
        }

        @Override
        public int read() throws IOException {
          byte[] one = new byte[1];
          return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
          while (position < end) {
            if (current == null) {
              while (piece < pieces.size() && starts[piece + 1] <= position) {
                piece++;
              }
              if (piece == pieces.size()) {
                return -1; // past the pieces: the caller's length check says so
              }
              long from = position - starts[piece];
              current = pieces.get(piece).open(from, Math.min(end, starts[piece + 1]) - position);
            }
            int read = current.read(buffer, offset, (int) Math.min(length, end - position));
            if (read >= 0) {
              position += read;
              return read;
            }
            current.close();
            current = null;
            if (position < starts[piece + 1]) {
              return -1; // the piece ended early: so does the whole, never shifted (a length check says so)
            }
            piece++;
          }
          return -1;
        }

        @Override
        public void close() throws IOException {
          if (current != null) {
            current.close();
            current = null;
          }
        }
      }
    };
  }
}
