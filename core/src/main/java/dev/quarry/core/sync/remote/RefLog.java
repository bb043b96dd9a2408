package dev.quarry.core.sync.remote;

import dev.quarry.core.concurrent.InFlight;
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
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

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
  private final int inFlight;

  RefLog(ObjectStore store, CasLayout layout, int inFlight) {
    this.store = store;
    this.layout = layout;
    this.inFlight = inFlight;
  }

  public void append(RefLogEntry entry) throws IOException {
    store.put(layout.refLogKey(entry.ref(), entry.time(), UUID.randomUUID().toString()), entry.toJson());
  }

  /** The newest {@code limit} entries of one ref, newest first. */
  public List<Record> read(String ref, int limit) throws IOException {
    List<ObjectInfo> newest = new ArrayList<>();
    Iterator<ObjectInfo> objects = store.listAll(layout.refLogPrefix(ref)).iterator();
    while (newest.size() < limit && objects.hasNext()) {
      newest.add(objects.next());
    }
    Map<ObjectInfo, Record> records = readAll(newest, object -> ref);
    return newest.stream().map(records::get).filter(Objects::nonNull).toList();
  }

  /** Every entry of every ref stored after {@code since}, for gc. */
  public List<Record> readSince(Instant since) throws IOException {
    String prefix = layout.refLogPrefix();
    List<ObjectInfo> recent = store.listAll(prefix)
        .filter(object -> object.key().indexOf('/', prefix.length()) > 0 && !object.lastModified().isBefore(since))
        .toList();
    return List.copyOf(readAll(recent, object -> {
      String ref = object.key().substring(prefix.length(), object.key().indexOf('/', prefix.length()));
      CasLayout.requireRefName(ref);
      return ref;
    }).values());
  }

  /** Reads and checks the entries, {@code inFlight} at a time; one that vanished meanwhile is left out. */
  private Map<ObjectInfo, Record> readAll(List<ObjectInfo> objects, Function<ObjectInfo, String> refOf)
      throws IOException {
    Map<ObjectInfo, Record> records = new ConcurrentHashMap<>();
    InFlight.all(objects, inFlight, object -> {
      byte[] body;
      try (InputStream in = store.get(object.key())) {
        body = in.readNBytes(RefLogEntry.MAX_BYTES + 1);
      } catch (NoSuchObjectException deleted) {
        return;
      }
      records.put(object, new Record(object.key(), object.lastModified(),
          RefLogEntry.parse(store.url(object.key()), refOf.apply(object), body)));
    });
    return records;
  }
}
