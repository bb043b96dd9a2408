package dev.quarry.core.sort.records;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A run being written: nothing is visible under its name until {@link #commit()}, and {@link #close()} without a
 * commit discards it, so a writer that failed midway never leaves a run cut short for a reader.
 */
public interface RunOutput extends AutoCloseable {
  /** Where the run's bytes go; closing it does not commit. */
  OutputStream stream();

  /** Makes the run visible under its name. */
  void commit() throws IOException;

  /** Discards the run unless committed. */
  @Override
  void close() throws IOException;
}
