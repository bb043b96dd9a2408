package dev.quarry.core.store;

import java.io.IOException;

/** A ranged read that does not lie within the object: the object is shorter than the reader expected. */
public final class RangeBeyondEndException extends IOException {
  private static final long serialVersionUID = 1L;

  RangeBeyondEndException(String message) {
    super(message);
  }
}
