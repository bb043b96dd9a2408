package dev.quarry.core.sort;

import com.fasterxml.jackson.core.JacksonException;
import dev.quarry.core.json.Json;
import dev.quarry.core.store.LimitedInputStream;
import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/**
 * The JSON a phase writes to scratch and a later phase reads back (markers, results, the list of inputs, the plan).
 * What a store holds is not trusted: a document is read up to {@link #MAX_BYTES} and no further, and one that does
 * not parse is reported by its URL and what it should have been, never by quoting it, so no object content reaches
 * a message or a job's status. A phase refuses to write a document it could not read back.
 */
public final class StoredJson {
  /**
   * The most bytes a scratch document may have: the input list and the plan's output shards, about 100 bytes a
   * shard, are kept in pages of 4,096 (StoredInputs, PlanShards), so no document grows with the job's shards. One
   * planted in scratch cannot take the heap.
   */
  static final long MAX_BYTES = 64L << 20;

  private StoredJson() {}

  public static <T> T read(ObjectStore store, String key, Class<T> type) throws IOException {
    return read(store, key, type, "rerun the phase that wrote it");
  }

  /**
   * The document at {@code key}, or empty when there is none: one GET, where a HEAD before the read was a request more
   * for each marker a phase looks for (a partition step looked at every extract worker's).
   */
  public static <T> Optional<T> readIfPresent(ObjectStore store, String key, Class<T> type) throws IOException {
    try {
      return Optional.of(read(store, key, type));
    } catch (NoSuchObjectException e) {
      return Optional.empty();
    }
  }

  /** As {@link #read(ObjectStore, String, Class)}; {@code remedy}: what a message says to do about a bad document. */
  public static <T> T read(ObjectStore store, String key, Class<T> type, String remedy) throws IOException {
    String tooLarge = "Cannot read " + store.url(key) + ": it is larger than " + (MAX_BYTES >> 20) + " MiB, more"
        + " than a sort writes there (it was changed or is corrupt; " + remedy + ")";
    byte[] bytes;
    try (InputStream in = new LimitedInputStream(store.get(key), MAX_BYTES, tooLarge)) {
      bytes = in.readAllBytes();
    }
    T value;
    try {
      value = Json.read(bytes, type);
    } catch (JacksonException e) {
      value = null;
    }
    if (value == null) { // not JSON, not this type's, or JSON's null, which no phase writes
      throw new IOException("Cannot read " + store.url(key) + ": it is not a valid " + type.getSimpleName()
          + " document (it was changed or is corrupt; " + remedy + ")");
    }
    return value;
  }

  /** Writes {@code value}, unless it is larger than {@link #read} accepts. */
  public static void write(ObjectStore store, String key, Object value) throws IOException {
    store.put(key, readable(store, key, value));
  }

  /** As {@link #write}, unless an object is there already: false then ({@link ObjectStore#putIfAbsent}). */
  public static boolean writeIfAbsent(ObjectStore store, String key, Object value) throws IOException {
    return store.putIfAbsent(key, readable(store, key, value));
  }

  /** The JSON of {@code value}, refused when it is larger than a worker reads back. */
  private static byte[] readable(ObjectStore store, String key, Object value) throws IOException {
    byte[] bytes = Json.bytes(value);
    if (bytes.length > MAX_BYTES) {
      throw new IOException("Cannot write " + store.url(key) + ": it would be " + (bytes.length >> 20) + " MiB, more"
          + " than the " + (MAX_BYTES >> 20) + " MiB a worker reads back (split the job: fewer input or output"
          + " shards)");
    }
    return bytes;
  }
}
