package dev.quarry.core.store;

import java.io.IOException;

/** A read of an object that does not exist. */
public final class NoSuchObjectException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String url;

  public NoSuchObjectException(String url) {
    super("Cannot read " + url + ": no such object");
    this.url = url;
  }

  /** The URL of the missing object. */
  public String url() {
    return url;
  }
}
