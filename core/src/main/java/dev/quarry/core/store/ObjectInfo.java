package dev.quarry.core.store;

import java.time.Instant;
import java.util.Objects;

/**
 * What a store knows about one object.
 *
 * @param key the object's key in its store
 * @param size its length in bytes
 * @param etag an opaque version tag without quotes: it changes when the object is rewritten
 * @param lastModified when it was written, as far as the store knows
 */
public record ObjectInfo(String key, long size, String etag, Instant lastModified) {
  public ObjectInfo {
    Objects.requireNonNull(key, "key");
    if (size < 0) {
      throw new IllegalArgumentException("Invalid object size: " + size + " (must be at least 0)");
    }
  }
}
