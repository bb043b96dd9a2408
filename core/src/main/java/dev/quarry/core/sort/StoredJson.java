package dev.quarry.core.sort;

import com.fasterxml.jackson.core.JacksonException;
import dev.quarry.core.json.Json;
import dev.quarry.core.store.ObjectStore;
import java.io.IOException;

/**
 * Reads the JSON a phase wrote (markers, results, the plan) back from a store. What a store holds is not trusted:
 * a document that does not parse is reported by its URL and what it should have been, never by quoting it, so no
 * object content reaches a message or a job's status.
 */
public final class StoredJson {
  private StoredJson() {}

  public static <T> T read(ObjectStore store, String key, Class<T> type) throws IOException {
    byte[] bytes = store.getBytes(key);
    try {
      return Json.read(bytes, type);
    } catch (JacksonException e) {
      throw new IOException("Cannot read " + store.url(key) + ": it is not a valid " + type.getSimpleName()
          + " document (it was changed or is corrupt; rerun the phase that wrote it)");
    }
  }
}
