package dev.quarry.core.sort;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.memory.MemoryLimit;
import org.junit.jupiter.api.Test;

/** How a sort divides its budget between the heap, the entries on it and the record bytes outside it. */
class MemoryBudgetTest {
  private static final long GIB = 1L << 30;

  @Test
  void theDefaultIsEightyPercentOfTheLimit() {
    assertThat(MemoryBudget.defaultFor(new MemoryLimit(10 * GIB, "/sys/fs/cgroup/memory.max")).bytes())
        .isEqualTo(8 * GIB);
  }

  @Test
  void aPhasesHeapIsTheBudgetAndSortRunsIsHalfOfIt() {
    MemoryBudget budget = new MemoryBudget(GIB);

    assertThat(budget.heapBytes(false)).isEqualTo(GIB);
    assertThat(budget.heapBytes(true)).isEqualTo(GIB / 2);
  }

  @Test
  void theHeapIsAtLeast64MiBAndSortRunThenHoldsNoRecordBytesInMemory() {
    MemoryBudget smallest = new MemoryBudget(16L << 20);

    assertThat(smallest.heapBytes(false)).isEqualTo(64L << 20);
    assertThat(smallest.heapBytes(true)).isEqualTo(64L << 20);
    assertThat(smallest.recordBytes()).isZero();
  }

  @Test
  void entriesTakeHalfTheBudgetAndNeverMoreThanHalfTheHeap() {
    long heap = Runtime.getRuntime().maxMemory();

    assertThat(new MemoryBudget(64L << 20).entryBytes()).isEqualTo(32L << 20);
    assertThat(new MemoryBudget(4 * heap).entryBytes()).isEqualTo(heap / 2);
  }

  @Test
  void recordBytesAreTheRestLessAnEighthForTheJdksBuffers() {
    assertThat(new MemoryBudget(256L << 20).recordBytes()).isEqualTo(112L << 20);
  }
}
