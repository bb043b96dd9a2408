package dev.quarry.core.store;

import java.util.Objects;

/**
 * A key in a store, as {@link ObjectStores#locate(String)} parsed it from a URL. The key may be empty or end with
 * '/' when the URL named a prefix rather than one object.
 */
public record Location(ObjectStore store, String key) {
  public Location {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(key, "key");
  }

  public String url() {
    return store.url(key);
  }
}
