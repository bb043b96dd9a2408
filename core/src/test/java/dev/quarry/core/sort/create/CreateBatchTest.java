package dev.quarry.core.sort.create;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.sort.MemoryBudget;
import org.junit.jupiter.api.Test;

/** How many output shards a create batch gathers, whose entries it holds in the heap all at once. */
class CreateBatchTest {
  @Test
  void aBatchHoldsNoMoreEntriesThanTheBudgetsEntryBytes() {
    long entryBytes = new MemoryBudget(1L << 30).entryBytes();
    // 256 MiB shards of 1 KiB records: 262,144 entries a shard, about 83 MB of heap.
    int tiny = CreatePhase.shardsPerBatch(64L * 262_144, 64, entryBytes, CreatePhase.ENTRY_HEAP_BYTES);
    assertThat(tiny).isBetween(1, 8);
    assertThat(tiny * 262_144L * CreatePhase.ENTRY_HEAP_BYTES).isLessThanOrEqualTo(entryBytes);
    // 256 MiB shards of 100 KiB records: 2,622 entries a shard, so the whole batch of 64.
    assertThat(CreatePhase.shardsPerBatch(64L * 2_622, 64, entryBytes, CreatePhase.ENTRY_HEAP_BYTES))
        .isEqualTo(64);
    // A shard whose entries alone pass the budget is still built, alone.
    assertThat(CreatePhase.shardsPerBatch(100_000_000L, 1, 1L << 20, CreatePhase.ENTRY_HEAP_BYTES))
        .isEqualTo(1);
    assertThat(CreatePhase.shardsPerBatch(0, 0, entryBytes, CreatePhase.ENTRY_HEAP_BYTES)).isEqualTo(64);
    // Entries of long keys, seen in the first batch, make the next batches smaller.
    assertThat(CreatePhase.shardsPerBatch(64L * 262_144, 64, entryBytes, 2 * CreatePhase.ENTRY_HEAP_BYTES))
        .isEqualTo(tiny / 2);
  }
}
