package dev.quarry.core.archive.tar;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.ShardReader;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.TestTools;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Members beyond the 8 GiB an octal size field holds, without writing 8 GiB to disk: headers plus zeros. */
class TarLargeSizeTest {
  private static final long NINE_GIB = 9L << 30;

  @ParameterizedTest
  @ValueSource(strings = {"GNU_FORMAT", "PAX_FORMAT"})
  void readsSizesBeyondOctalFromPythonsHeaders(String format) throws Exception {
    String hex = CommandResult.check(null, TestTools.python().toString(), "-c", """
        import tarfile
        info = tarfile.TarInfo('huge/video.mp4'); info.size = %d; info.mtime = 1700000000.75
        print(info.tobuf(format=tarfile.%s).hex())
        """.formatted(NINE_GIB, format)).strip();
    byte[] headers = HexFormat.of().parseHex(hex);
    try (ShardReader reader = new TarReader(archive(headers, NINE_GIB), "huge.tar", ArchiveLimits.DEFAULT)) {
      ArchiveMember member = reader.next();
      assertThat(member.name()).isEqualTo("huge/video.mp4");
      assertThat(member.size()).isEqualTo(NINE_GIB);
      assertThat(member.raw().length()).isEqualTo(headers.length + NINE_GIB);
      assertThat(reader.next()).as("the reader skips the 9 GiB of data").isNull();
    }
  }

  @Test
  void writesSizesBeyondOctalAsPaxThatPythonReads() throws Exception {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    // Keeps the first 2 KiB (the headers) of what the writer writes, and drops the 9 GiB of data.
    OutputStream firstBlocks = new OutputStream() {
      @Override
      public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) {
        head.write(b, off, Math.max(0, Math.min(len, 2048 - head.size())));
      }
    };
    try (TarWriter writer = new TarWriter(firstBlocks)) {
      writer.writeMember("huge/video.mp4", NINE_GIB, zeros(NINE_GIB));
    }
    byte[] headers = java.util.Arrays.copyOf(head.toByteArray(), 1024); // PAX header block + its data block
    assertThat(new String(headers, 512, 40, StandardCharsets.US_ASCII)).startsWith("19 size=9663676416\n");
    String parsed = CommandResult.check(null, TestTools.python().toString(), "-c", """
        import io, sys, tarfile
        data = bytes.fromhex(sys.argv[1]) + bytes(512 * 3)
        info = tarfile.TarInfo.frombuf(data[1024:1536], 'utf-8', 'strict')
        pax = tarfile.TarInfo.frombuf(data[0:512], 'utf-8', 'strict')
        print(pax.type, info.name)
        """, HexFormat.of().formatHex(java.util.Arrays.copyOf(head.toByteArray(), 1536)));
    assertThat(parsed.strip()).isEqualTo("b'x' huge/video.mp4");
    try (ShardReader reader = new TarReader(archive(java.util.Arrays.copyOf(head.toByteArray(), 1536), NINE_GIB),
        "ours.tar", ArchiveLimits.DEFAULT)) {
      assertThat(reader.next().size()).isEqualTo(NINE_GIB);
    }
  }

  /** Headers, {@code size} zero bytes of data and padding, and the end of the archive. */
  private static InputStream archive(byte[] headers, long size) {
    long padding = TarFormat.padded(size) - size;
    return new SequenceInputStream(java.util.Collections.enumeration(List.of(
        new java.io.ByteArrayInputStream(headers), zeros(size + padding),
        new java.io.ByteArrayInputStream(TarFormat.END_OF_ARCHIVE))));
  }

  private static InputStream zeros(long count) {
    return new InputStream() {
      private long left = count;

      @Override
      public int read() {
        if (left == 0) {
          return -1;
        }
        left--;
        return 0;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        if (left == 0) {
          return -1;
        }
        int n = (int) Math.min(len, left);
        java.util.Arrays.fill(b, off, off + n, (byte) 0);
        left -= n;
        return n;
      }

      @Override
      public long skip(long n) throws IOException {
        long skipped = Math.min(n, left);
        left -= skipped;
        return skipped;
      }
    };
  }
}
