package dev.quarry.core.store;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
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

  /** The file {@code file} as it is now; each stream opens it, so that a part read for a retry is read afresh. */
  static RangedContent of(Path file) throws IOException {
    long size = Files.size(file);
    return new RangedContent() {
      @Override
      public long length() {
        return size;
      }

      @Override
      public InputStream open(long offset, long length) throws IOException {
        return new FileRangeStream(FileChannel.open(file, StandardOpenOption.READ), file.toString(), offset,
            offset + length);
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

  /** {@code pieces}, one after the other. */
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
      public InputStream open(long offset, long length) throws IOException {
        long end = offset + length;
        List<InputStream> streams = new ArrayList<>();
        try {
          for (int i = 0; i < pieces.size() && starts[i] < end; i++) {
            long from = Math.max(offset, starts[i]);
            long to = Math.min(end, starts[i + 1]);
            if (from < to) {
              streams.add(pieces.get(i).open(from - starts[i], to - from));
            }
          }
        } catch (IOException | RuntimeException e) {
          for (InputStream opened : streams) {
            try {
              opened.close();
            } catch (IOException suppressed) {
              e.addSuppressed(suppressed);
            }
          }
          throw e;
        }
        return new SequenceInputStream(Collections.enumeration(streams));
      }
    };
  }
}
