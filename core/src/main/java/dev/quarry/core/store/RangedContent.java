package dev.quarry.core.store;

import java.io.IOException;
import java.io.InputStream;

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
}
