package dev.quarry.core.sort.create;

import dev.quarry.core.sort.records.RecordEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/** A shard's entries held in the heap, for tests that give create's classes entries of their own. */
final class HeldEntries {
  /** A spool without bound: it never writes to its folder, which need not exist. */
  private static final ShardEntries.Spool UNBOUNDED = new ShardEntries.Spool(Path.of("unused-entries"),
      Long.MAX_VALUE);

  private HeldEntries() {}

  static ShardEntries of(List<RecordEntry> entries) {
    try {
      return UNBOUNDED.of(entries);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
