package dev.quarry.core.store;

import java.io.IOException;

/**
 * Where an {@link ObjectUpload} is in its life: open until committed or aborted, after which writes and commits are
 * refused with one message whatever the store.
 */
final class UploadState {
  private enum State { OPEN, COMMITTED, ABORTED }

  private final String url;
  private State state = State.OPEN;

  UploadState(String url) {
    this.url = url;
  }

  /** Refuses {@code action} ("write", "commit") unless the upload is open. */
  void requireOpen(String action) throws IOException {
    if (state != State.OPEN) {
      throw new IOException("Cannot " + action + " " + url + ": the upload was already "
          + (state == State.COMMITTED ? "committed" : "aborted"));
    }
  }

  void committed() {
    state = State.COMMITTED;
  }

  /** Marks the upload aborted; false when it had already ended, and there is nothing to undo. */
  boolean abort() {
    if (state != State.OPEN) {
      return false;
    }
    state = State.ABORTED;
    return true;
  }
}
