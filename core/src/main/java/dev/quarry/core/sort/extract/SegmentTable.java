package dev.quarry.core.sort.extract;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.RangeBeyondEndException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * Where each partition's segment starts in an extract worker's pack: after the pack's records, P+1 big-endian 8-byte
 * offsets (the segments' starts, then the records' end, which is where the table starts). The plan reads every table
 * whole, checks it, and writes each partition's segments for its create workers ({@code PackSegments}): no one else
 * reads a table.
 */
public final class SegmentTable {
  private static final int OFFSET_BYTES = Long.BYTES;

  private SegmentTable() {}

  /** One partition's segment of a pack: its records' bytes are [start, end). Written as {@code [start, end]}. */
  @JsonFormat(shape = JsonFormat.Shape.ARRAY)
  @JsonPropertyOrder({"start", "end"})
  public record Segment(long start, long end) {
    public long length() {
      return end - start;
    }
  }

  /** The table of {@code offsets}: the P segments' starts, then the records' end. */
  static byte[] encode(long[] offsets) {
    ByteBuffer table = ByteBuffer.allocate(offsets.length * OFFSET_BYTES);
    for (long offset : offsets) {
      table.putLong(offset);
    }
    return table.array();
  }

  /** The size of a pack of {@code recordBytes} bytes of records in {@code partitions} segments, its table included. */
  public static long packSize(long recordBytes, int partitions) {
    return recordBytes + (long) (partitions + 1) * OFFSET_BYTES;
  }

  /**
   * Every segment's start and the records' end of {@code pack} ({@code partitions} + 1 offsets): one ranged GET.
   * Refuses a table that does not rise from 0 to {@code recordBytes}. The plan's check of each pack.
   */
  public static long[] all(ObjectStore store, String pack, long recordBytes, int partitions) throws IOException {
    int count = partitions + 1;
    byte[] bytes;
    try (InputStream in = store.getRange(pack, recordBytes, (long) count * OFFSET_BYTES)) {
      bytes = in.readNBytes(count * OFFSET_BYTES);
    } catch (RangeBeyondEndException e) {
      throw changed(store, pack, "it ends before its segment table");
    }
    if (bytes.length != count * OFFSET_BYTES) {
      throw changed(store, pack, "it ends before its segment table's offset " + bytes.length / OFFSET_BYTES);
    }
    long[] offsets = new long[count];
    ByteBuffer.wrap(bytes).asLongBuffer().get(offsets);
    boolean rising = offsets[0] == 0 && offsets[partitions] == recordBytes;
    for (int i = 1; rising && i <= partitions; i++) {
      rising = offsets[i - 1] <= offsets[i];
    }
    if (!rising) {
      throw changed(store, pack, "its segment table is not " + (partitions + 1) + " offsets rising from 0 to "
          + recordBytes);
    }
    return offsets;
  }

  private static IllegalStateException changed(ObjectStore store, String pack, String reason) {
    return new IllegalStateException("Cannot read the pack " + store.url(pack) + ": " + reason + " (the scratch was"
        + " changed; clean it and sort again)");
  }
}
