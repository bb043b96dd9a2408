package dev.quarry.core.sort;

import com.sun.management.HotSpotDiagnosticMXBean;
import dev.quarry.core.memory.MemoryLimit;
import dev.quarry.core.sort.create.CreatePhase;
import dev.quarry.core.units.ByteSize;
import java.lang.management.ManagementFactory;

/**
 * How a sort process divides its memory budget, the whole process's memory but for the JVM's fixed overhead
 * ({@link #FIXED_OVERHEAD_BYTES}: class data, compiled code, the collector's tables, thread stacks):
 * <ul>
 *   <li>the heap: the whole budget for a phase command, half of it for {@code sort run}, whose other half holds
 *       record bytes outside the heap. The launchers size the JVM so ({@code worker-image/memory-options.sh}); this
 *       class says the same for the code that fills it;</li>
 *   <li>record entries a sorter gathers before spilling a run: half the budget, and at most half the heap, the
 *       other half being the collector's room and the phase's buffers;</li>
 *   <li>record members an extract worker groups into records, shard by shard, before it spills them: a quarter of the
 *       entries' share, spread over the shards it reads at once;</li>
 *   <li>record bytes a local run holds outside the heap: the budget less the heap, less an eighth of it for the
 *       JDK's own direct buffers and less create's write buffers, and within this JVM's direct memory limit.</li>
 * </ul>
 * Without a budget, the default is {@value #DEFAULT_PERCENT}% of the process's {@link MemoryLimit} (as dSort takes
 * 80% of a target's memory), leaving the rest for the fixed overhead and the kernel; under a small limit, the limit
 * less the fixed overhead and {@link #MARGIN_BYTES} ({@link #defaultFor}).
 */
public record MemoryBudget(long bytes) {
  /** The default budget's share of the process's memory limit, in percent. */
  public static final int DEFAULT_PERCENT = 80;
  /** What a sort's JVM takes besides its budget, at most: measured 70 to 90 MiB (docs/operations.md). */
  public static final long FIXED_OVERHEAD_BYTES = 96L << 20;
  /** What the default budget leaves besides the fixed overhead, at least: the kernel's pages and the unforeseen. */
  public static final long MARGIN_BYTES = 32L << 20;

  /**
   * {@value #DEFAULT_PERCENT}% of {@code limit}, and at most the limit less the fixed overhead and
   * {@link #MARGIN_BYTES} (the smaller under 640 MiB, where 80% plus the overhead would pass the limit).
   *
   * @throws IllegalArgumentException when that leaves less than {@link #MIN_HEAP_BYTES}: the limit is too small to
   *     sort
   */
  public static MemoryBudget defaultFor(MemoryLimit limit) {
    long bytes = Math.min(limit.bytes() * DEFAULT_PERCENT / 100,
        limit.bytes() - FIXED_OVERHEAD_BYTES - MARGIN_BYTES);
    if (bytes < MIN_HEAP_BYTES) {
      throw new IllegalArgumentException("Cannot sort: the memory limit is " + ByteSize.format(limit.bytes()) + " ("
          + limit.source() + "), less than the " + ByteSize.format(MIN_HEAP_BYTES + FIXED_OVERHEAD_BYTES + MARGIN_BYTES)
          + " a sort needs at least");
    }
    return new MemoryBudget(bytes);
  }

  /**
   * The smallest heap the launchers give a sort, whatever its budget: a plan merges up to 32 runs through a 1 MiB
   * window each, and `sort run` under a 16Mi budget (an 8 MiB heap) ran out of heap. Below a budget of twice this,
   * {@code sort run} exceeds its budget by up to this much.
   */
  public static final long MIN_HEAP_BYTES = 64L << 20;

  /**
   * The heap the launchers give a sort command: all of the budget, or half for one that holds record bytes; at least
   * {@link #MIN_HEAP_BYTES}.
   */
  public long heapBytes(boolean holdsRecordBytes) {
    return Math.max(holdsRecordBytes ? bytes / 2 : bytes, MIN_HEAP_BYTES);
  }

  /**
   * {@link #heapBytes} as the JVM's {@code -Xmx} takes it, in whole MiB ({@code 819m}): what the launchers pass, and
   * what the operator puts in a worker pod's {@code QUARRY_SORT_HEAP} so that its entrypoint need not work it out.
   */
  public String heapSize(boolean holdsRecordBytes) {
    return (heapBytes(holdsRecordBytes) >> 20) + "m";
  }

  /** The most estimated heap bytes of record entries a sorter holds before it writes a run. */
  public long entryBytes() {
    return Math.min(bytes / 2, Runtime.getRuntime().maxMemory() / 2);
  }

  /**
   * The most estimated heap bytes of record members one input shard's grouping holds before it spills them to the
   * worker's disk, {@code shardsInFlight} shards being grouped at once.
   */
  public long groupingBytes(int shardsInFlight) {
    return entryBytes() / 4 / shardsInFlight;
  }

  /**
   * The most record bytes {@code sort run} holds outside the heap; past them, it spills to its work folder. Create's
   * write buffers, direct memory too, come out of the same half first.
   */
  public long recordBytes() {
    long offHeap = Math.min(Math.max(0, bytes - heapBytes(true)), directMemoryLimit());
    return Math.max(0, offHeap / 8 * 7 - CreatePhase.WRITE_BUFFERS_BYTES);
  }

  /** The JVM's direct memory limit: -XX:MaxDirectMemorySize, which defaults to the heap's maximum. */
  private static long directMemoryLimit() {
    String option = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
        .getVMOption("MaxDirectMemorySize").getValue();
    long configured = Long.parseLong(option);
    return configured > 0 ? configured : Runtime.getRuntime().maxMemory();
  }
}
