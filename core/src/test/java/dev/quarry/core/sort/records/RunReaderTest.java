package dev.quarry.core.sort.records;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs are read back from scratch, which someone may have changed: an entry whose counts or lengths claim more than
 * any entry holds fails in one line naming the run, before anything is sized from them. Before, a key length of 2^31
 * asked for a 2 GiB array (out of memory), a length past 2^31 a negative one, a range count of 2 billion a list of
 * that capacity, and a range of length 0 threw an IllegalArgumentException no caller turned into a message.
 */
class RunReaderTest {
  static Stream<Arguments> plantedEntries() {
    return Stream.of(
        Arguments.of("a key of 2^31 - 1 bytes", entry(out -> varint(out, Integer.MAX_VALUE)),
            "a record entry has a key of 2147483647 bytes (at most 1048576)"),
        Arguments.of("a key longer than an int", entry(out -> varint(out, 1L << 40)),
            "a record entry has a key of 1099511627776 bytes (at most 1048576)"),
        Arguments.of("2 billion byte ranges", entry(out -> {
          key(out);
          varint(out, 0); // shard
          varint(out, 0); // position
          varint(out, 0); // not packed, segment 0
          varint(out, 2_000_000_000L);
        }), "a record entry has a byte range of offset 0 and length 0"), // its ranges are read, not presized
        Arguments.of("more byte ranges than a record has bytes", entry(out -> {
          key(out);
          varint(out, 0);
          varint(out, 0);
          varint(out, 0);
          varint(out, 1L << 40);
        }), "a record entry has 1099511627776 byte ranges"),
        Arguments.of("a range of no bytes", entry(out -> {
          key(out);
          varint(out, 0);
          varint(out, 0);
          varint(out, 0);
          varint(out, 1);
          varint(out, 0); // offset delta
          varint(out, 0); // length
        }), "a record entry has a byte range of offset 0 and length 0"),
        Arguments.of("an input shard past an int", entry(out -> {
          key(out);
          varint(out, 1L << 33);
        }), "a record entry names input shard 8589934592"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("plantedEntries")
  void anEntryClaimingMoreThanAnyEntryHoldsFailsInOneLine(String what, byte[] run, String why) {
    assertThatThrownBy(() -> {
      try (RunReader reader = new RunReader(new ByteArrayInputStream(run), "scratch/run-1.run")) {
        reader.next();
      }
    }).isInstanceOf(IOException.class).hasMessageStartingWith("Cannot read run scratch/run-1.run: it is truncated or"
        + " corrupt (" + why);
  }

  /** The checks refuse nothing an entry may hold: a key of the longest a header allows, many ranges. */
  @Test
  void anEntryOfTheLongestKeyAndManyRangesReadsBack() throws Exception {
    String key = "k".repeat(RecordEntryCodec.MAX_STRING_BYTES);
    List<dev.quarry.core.archive.RawRange> ranges = Stream.iterate(0L, i -> i + 1).limit(1000)
        .map(i -> new dev.quarry.core.archive.RawRange(i * 1024, 512)).toList();
    RecordEntry entry = new RecordEntry(key, 7, 3, true, ranges, 1000 * 512, "content", 4);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      RecordEntryCodec.write(out, entry);
    }
    byte[] run = frame(out -> out.write(bytes.toByteArray()));
    try (RunReader reader = new RunReader(new ByteArrayInputStream(run), "r.run")) {
      assertThat(reader.next()).isEqualTo(entry);
    }
  }

  private interface Body {
    void write(DataOutputStream out) throws IOException;
  }

  private static byte[] entry(Body body) {
    return frame(body);
  }

  /** A run file: its magic, one entry marker, then {@code body}. */
  private static byte[] frame(Body body) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(new LZ4FrameOutputStream(bytes))) {
        out.write(RunWriter.MAGIC);
        out.writeByte(RunWriter.ENTRY);
        body.write(out);
        out.write(new byte[64]); // more bytes than the entry claims to need never reach the claim
      }
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void key(DataOutputStream out) throws IOException {
    byte[] key = "img/a00001".getBytes(StandardCharsets.UTF_8);
    varint(out, key.length);
    out.write(key);
  }

  private static void varint(DataOutputStream out, long value) throws IOException {
    RecordEntryCodec.writeVarLong(out, value);
  }
}
