package dev.quarry.core.sync.remote;

import java.io.IOException;

/** A version or manifest the remote should have and does not; the message says what to do. */
public final class MissingObjectException extends IOException {
  private static final long serialVersionUID = 1L;

  public MissingObjectException(String message) {
    super(message);
  }
}
