package dev.quarry.core.sort.order;

import dev.quarry.core.sort.records.RecordEntry;
import java.util.Comparator;

/** The order records were read in: input shards in input order, records in stream order. */
public final class InputOrder {
  public static final Comparator<RecordEntry> ENTRIES =
      Comparator.comparingInt(RecordEntry::shard).thenComparingInt(RecordEntry::position);

  private InputOrder() {}
}
