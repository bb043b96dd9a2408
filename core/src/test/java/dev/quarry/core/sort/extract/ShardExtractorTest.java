package dev.quarry.core.sort.extract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.RawRange;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.Shards;
import dev.quarry.core.policy.Problems;
import dev.quarry.core.sort.input.InputShard;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How one input shard becomes entries and, when packed, a pack. */
class ShardExtractorTest {
  @TempDir Path temp;

  /**
   * A local run packs a plain tar read from a file (whose stream is a channel too) straight into its pack's direct
   * buffers: no byte of it passes through a heap array. Before, each byte was read into the heap, then copied out.
   */
  @Test
  void aPlainTarFromAFileGoesIntoItsPackWithoutAHeapCopy() throws IOException {
    List<Record> records = new ArrayList<>();
    Random random = new Random(3);
    for (int i = 0; i < 40; i++) {
      byte[] image = new byte[random.nextInt(300_000)];
      random.nextBytes(image);
      records.add(new Record(String.format("r%03d", i), List.of(new Member(String.format("r%03d.jpg", i), image),
          new Member(String.format("r%03d.cls", i), new byte[] {(byte) ('0' + i % 10)}))));
    }
    byte[] tar = Shards.write(ShardFormat.TAR, records);
    SortSpec spec = new SortSpec(new SortSpec.Input(null, null, List.of(temp + "/in-0.tar"), null),
        new SortSpec.Output(temp + "/out/x-{0..}.tar", null, null, 10L, null),
        new SortSpec.Order(OrderKind.ALPHANUMERIC, null, null, null, null), null, null, null, false);
    try (LocalPacks packs = new LocalPacks(temp.resolve("spill"), 64L << 20)) {
      List<RecordEntry> entries = new ArrayList<>();
      long read = new ShardExtractor(spec, packs, true, new Problems())
          .extract(new InputShard(0, temp + "/in-0.tar", ShardFormat.TAR), new ChannelOnly(tar), entries::add);

      assertThat(read).isEqualTo(tar.length);
      assertThat(entries).extracting(RecordEntry::key).containsExactlyElementsOf(
          records.stream().map(Record::key).toList());
      ByteArrayOutputStream packed = new ByteArrayOutputStream();
      for (RecordEntry entry : entries) {
        for (RawRange range : entry.ranges()) {
          try (InputStream in = packs.read(0, range.offset(), range.length())) {
            in.transferTo(packed);
          }
        }
      }
      assertThat(packed.toByteArray()).as("every record's bytes, in the pack where the entries say")
          .isEqualTo(java.util.Arrays.copyOf(tar, packed.size()));
    }
  }

  /** A file's stream as a FileRangeStream is: a channel too, here one whose heap reads fail. */
  private static final class ChannelOnly extends InputStream implements ReadableByteChannel {
    private final ByteBuffer bytes;

    ChannelOnly(byte[] bytes) {
      this.bytes = ByteBuffer.wrap(bytes);
    }

    @Override
    public int read(ByteBuffer target) {
      if (!bytes.hasRemaining()) {
        return -1;
      }
      int n = Math.min(target.remaining(), bytes.remaining());
      target.put(bytes.slice(bytes.position(), n));
      bytes.position(bytes.position() + n);
      return n;
    }

    @Override
    public int read() {
      throw new AssertionError("a byte read into the heap");
    }

    @Override
    public int read(byte[] target, int offset, int length) {
      throw new AssertionError("bytes read into the heap");
    }

    @Override
    public long skip(long count) {
      throw new AssertionError("bytes skipped in the input, so missing from the pack");
    }

    @Override
    public boolean isOpen() {
      return true;
    }
  }
}
