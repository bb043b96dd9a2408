package dev.quarry.core.store;

import java.io.IOException;
import java.io.InputStream;

/**
 * An object's bytes known in advance: their length, their SHA-256, and a way to read them again from the start (for
 * a retry, or a second pass). A caller that hashes its output anyway (a shard's manifest entry) hands the hash over,
 * so that the store need not hash the bytes again to sign them.
 */
public record HashedContent(long length, byte[] sha256, Opener opener) {
  /** Opens the bytes from the start; each call gives a fresh stream. */
  @FunctionalInterface
  public interface Opener {
    InputStream open() throws IOException;
  }

  public HashedContent {
    if (length < 0 || sha256.length != 32) {
      throw new IllegalArgumentException("Invalid content: " + length + " bytes, a " + sha256.length
          + "-byte SHA-256");
    }
  }
}
