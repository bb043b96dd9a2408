package dev.quarry.core.sort.create;

import dev.quarry.core.sort.records.RecordEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/** A shard's entries made of a list, for tests that give create's classes entries of their own. */
final class HeldEntries {
  /** A spool without bound: it never writes to its folder, which need not exist. */
  private static final ShardEntries.Spool UNBOUNDED = new ShardEntries.Spool(Path.of("unused-entries"),
      Long.MAX_VALUE);

  private HeldEntries() {}

  /** {@code entries} held in the heap, finished. */
  static ShardEntries of(List<RecordEntry> entries) {
    try {
      return of(UNBOUNDED, entries);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code entries} added in order to a shard of {@code spool}, which holds or spills them as it has room. */
  static ShardEntries of(ShardEntries.Spool spool, List<RecordEntry> entries) throws IOException {
    ShardEntries shard = spool.entries();
    for (RecordEntry entry : entries) {
      shard.add(entry);
    }
    return shard.finish();
  }
}
