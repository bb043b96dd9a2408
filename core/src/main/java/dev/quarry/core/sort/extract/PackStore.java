package dev.quarry.core.sort.extract;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;

/**
 * Where the raw tar bytes of packed input shards live: scratch objects when phases run in separate pods, memory and
 * local disk when everything runs in one process.
 */
public interface PackStore {
  /** A pack being written; it exists for readers only after {@link PackOutput#commit()}. */
  PackOutput create(int shard) throws IOException;

  /**
   * This store, its packs written first to files in {@code folder} (an extract worker's local folder) where writing
   * them as they come would hold parts of them in memory.
   */
  default PackStore spoolingIn(Path folder) {
    return this;
  }

  /** Bytes [offset, offset + length) of the pack of {@code shard}. */
  InputStream read(int shard, long offset, long length) throws IOException;

  /** A pack being written. */
  interface PackOutput extends AutoCloseable {
    OutputStream stream();

    void commit() throws IOException;

    /** Discards the pack unless it was committed. */
    @Override
    void close() throws IOException;
  }
}
