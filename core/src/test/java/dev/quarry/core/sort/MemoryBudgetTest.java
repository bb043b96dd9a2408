package dev.quarry.core.sort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.memory.MemoryLimit;
import dev.quarry.core.sort.create.CreatePhase;
import org.junit.jupiter.api.Test;

/** How a sort divides its budget between the heap, the entries on it and the record bytes outside it. */
class MemoryBudgetTest {
  private static final long GIB = 1L << 30;

  @Test
  void theDefaultIsEightyPercentOfTheLimit() {
    assertThat(MemoryBudget.defaultFor(new MemoryLimit(10 * GIB, "/sys/fs/cgroup/memory.max")).bytes())
        .isEqualTo(8 * GIB);
  }

  /**
   * Under a small limit 80% leaves less than the JVM's fixed overhead and a margin: the budget is then the limit less
   * both, so that budget plus overhead fits (80% of 256Mi plus 96 MiB was 301 MiB, an OOM kill).
   */
  @Test
  void underASmallLimitTheDefaultLeavesTheFixedOverheadAndAMargin() {
    long mib = 1L << 20;
    assertThat(MemoryBudget.defaultFor(new MemoryLimit(256 * mib, "/sys/fs/cgroup/memory.max")).bytes())
        .isEqualTo(256 * mib - MemoryBudget.FIXED_OVERHEAD_BYTES - MemoryBudget.MARGIN_BYTES).isEqualTo(128 * mib);
    assertThat(MemoryBudget.defaultFor(new MemoryLimit(640 * mib, "/sys/fs/cgroup/memory.max")).bytes())
        .as("where both rules meet").isEqualTo(512 * mib);
    assertThat(MemoryBudget.defaultFor(new MemoryLimit(192 * mib, "/sys/fs/cgroup/memory.max")).bytes())
        .as("the least: the least heap").isEqualTo(MemoryBudget.MIN_HEAP_BYTES);
  }

  @Test
  void aLimitTooSmallForTheLeastHeapAndTheOverheadIsRefused() {
    assertThatThrownBy(() -> MemoryBudget.defaultFor(new MemoryLimit(128L << 20, "/sys/fs/cgroup/memory.max")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot sort: the memory limit is 128.0 MiB (/sys/fs/cgroup/memory.max), less than the 192.0 MiB"
            + " a sort needs at least");
  }

  @Test
  void aPhasesHeapIsTheBudgetAndSortRunsIsHalfOfIt() {
    MemoryBudget budget = new MemoryBudget(GIB);

    assertThat(budget.heapBytes(false)).isEqualTo(GIB);
    assertThat(budget.heapBytes(true)).isEqualTo(GIB / 2);
  }

  /** As -Xmx takes it, in whole MiB: 512000k is 488.28 MiB. */
  @Test
  void theHeapSizeIsTheHeapInWholeMiB() {
    assertThat(new MemoryBudget(GIB).heapSize(false)).isEqualTo("1024m");
    assertThat(new MemoryBudget(GIB).heapSize(true)).isEqualTo("512m");
    assertThat(new MemoryBudget(512_000_000L).heapSize(false)).isEqualTo("488m");
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
  void recordBytesAreTheRestLessAnEighthForTheJdksBuffersAndCreatesWriteBuffers() {
    assertThat(new MemoryBudget(256L << 20).recordBytes()).isEqualTo((112L << 20) - CreatePhase.WRITE_BUFFERS_BYTES);
  }
}
