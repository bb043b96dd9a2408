package dev.quarry.core.sort.extract;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * Where the raw tar bytes of packed input shards live: scratch objects when phases run in separate pods, memory and
 * local disk when everything runs in one process.
 */
public interface PackStore {
  /** A pack being written; it exists for readers only after {@link PackOutput#commit()}. */
  PackOutput create(int shard) throws IOException;

  /** Bytes [offset, offset + length) of the pack of {@code shard}. */
  InputStream read(int shard, long offset, long length) throws IOException;

  /** A pack being written. */
  interface PackOutput extends AutoCloseable {
    OutputStream stream();

    /**
     * Appends {@code bytes} from their position to their limit, which they are left at: a store that keeps packs in
     * direct buffers copies them once, from one direct buffer to another.
     */
    default void write(ByteBuffer bytes) throws IOException {
      if (bytes.hasArray()) {
        stream().write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
        bytes.position(bytes.limit());
        return;
      }
      byte[] copy = new byte[bytes.remaining()];
      bytes.get(copy);
      stream().write(copy);
    }

    void commit() throws IOException;

    /** Discards the pack unless it was committed. */
    @Override
    void close() throws IOException;
  }
}
