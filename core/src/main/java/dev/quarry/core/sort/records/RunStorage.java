package dev.quarry.core.sort.records;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/** Where runs are kept: object storage under a scratch prefix (across pods) or a local folder (within one process). */
public interface RunStorage {
  /** A new run to write; it exists for readers once committed. */
  RunOutput create(String name) throws IOException;

  InputStream open(String name) throws IOException;

  /** The names of every complete run under {@code prefix}, sorted. */
  List<String> list(String prefix) throws IOException;

  void delete(String name) throws IOException;

  /**
   * About the most memory a run of {@code size} bytes being written holds in its storage, besides {@link RunWriter}'s
   * own buffers.
   */
  default long writeBufferBytes(long size) {
    return 0;
  }
}
