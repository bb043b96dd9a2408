package dev.quarry.core.sync.remote;

import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.cas.CasLayout;
import dev.quarry.core.sync.cas.RefLogEntry;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;

/**
 * The history of every ref: one object per update under {@code refs-log/<ref>/}, named by the inverted time of the
 * update and a random id, so that a listing returns the newest first and two writers never write the same key (plain
 * S3 has no conditional append).
 */
public final class RefLog {
  /** An entry and where and when the store says it was written. */
  public record Record(String key, Instant storedAt, RefLogEntry entry) {}

  private final ObjectStore store;
  private final CasLayout layout;

  RefLog(ObjectStore store, CasLayout layout) {
    this.store = store;
    this.layout = layout;
  }

  public void append(RefLogEntry entry) throws IOException {
    store.put(layout.refLogKey(entry.ref(), entry.time(), UUID.randomUUID().toString()), entry.toJson());
  }

  /** The newest {@code limit} entries of one ref, newest first. */
  public List<Record> read(String ref, int limit) throws IOException {
    List<Record> records = new ArrayList<>();
    Iterator<ObjectInfo> objects = store.listAll(layout.refLogPrefix(ref)).iterator();
    while (records.size() < limit && objects.hasNext()) {
      ObjectInfo object = objects.next();
      read(object, ref).ifPresent(records::add);
    }
    return records;
  }

  /** Every entry of every ref stored after {@code since}, for gc. */
  public List<Record> readSince(Instant since) throws IOException {
    List<Record> records = new ArrayList<>();
    String prefix = layout.refLogPrefix();
    for (ObjectInfo object : (Iterable<ObjectInfo>) store.listAll(prefix)::iterator) {
      String rest = object.key().substring(prefix.length());
      int slash = rest.indexOf('/');
      if (slash < 0 || object.lastModified().isBefore(since)) {
        continue;
      }
      String ref = rest.substring(0, slash);
      CasLayout.requireRefName(ref);
      read(object, ref).ifPresent(records::add);
    }
    return records;
  }

  private java.util.Optional<Record> read(ObjectInfo object, String ref) throws IOException {
    byte[] body;
    try (InputStream in = store.get(object.key())) {
      body = in.readNBytes(RefLogEntry.MAX_BYTES + 1);
    } catch (NoSuchObjectException deleted) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(new Record(object.key(), object.lastModified(),
        RefLogEntry.parse(store.url(object.key()), ref, body)));
  }
}
