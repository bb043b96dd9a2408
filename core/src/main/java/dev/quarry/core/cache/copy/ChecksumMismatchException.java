package dev.quarry.core.cache.copy;

import java.io.IOException;

/** A copy's bytes do not hash to the checksum the image declares: the copy was discarded. */
public final class ChecksumMismatchException extends IOException {
  public ChecksumMismatchException(String message) {
    super(message);
  }
}
