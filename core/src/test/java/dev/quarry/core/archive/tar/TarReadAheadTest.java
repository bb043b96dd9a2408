package dev.quarry.core.archive.tar;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** How much of a tar its reader reads when the data of members is skipped, as extract skips it. */
class TarReadAheadTest {
  /**
   * Records of a 100 KiB image and a 3-byte label, read for their headers over a stream whose skips are seeks (a
   * local file): the reader reads the headers and the labels, about 8 KiB a record, not the images. Before, each
   * fill after an image was skipped read 64 KiB, most of the next image, and extract read 63% of the input.
   */
  @Test
  void headersReadOverASeekableStreamSkipTheDataOfLargeMembers() throws IOException {
    byte[] tar = archive(200, 100 << 10);
    SeekingStream in = new SeekingStream(tar);
    List<String> names = names(in);

    assertThat(names).hasSize(400).startsWith("r00000.jpg", "r00000.cls").endsWith("r00199.cls");
    assertThat(in.read + in.skipped).as("bytes read and skipped").isEqualTo(tar.length);
    assertThat((double) in.read / tar.length).as("share of the archive read, of %d bytes", tar.length)
        .isLessThan(0.10);
  }

  /**
   * Members smaller than the buffer are read in whole 64 KiB fills, as before: no skip passes a whole buffer, so the
   * reads never shrink (a record of 100 bytes a read would be a system call each).
   */
  @Test
  void smallMembersAreReadInWholeBuffers() throws IOException {
    byte[] tar = archive(2000, 100);
    SeekingStream in = new SeekingStream(tar);

    assertThat(names(in)).hasSize(4000);
    assertThat(in.reads).as("reads of an archive of %d bytes", tar.length)
        .isLessThanOrEqualTo(tar.length / CountingInput.BUFFER_BYTES + 2);
  }

  /** {@code records} records of an image of {@code imageBytes} random bytes and a label. */
  private static byte[] archive(int records, int imageBytes) throws IOException {
    Random random = new Random(records);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (TarWriter writer = new TarWriter(bytes)) {
      for (int i = 0; i < records; i++) {
        byte[] image = new byte[imageBytes];
        random.nextBytes(image);
        writer.writeMember(String.format("r%05d.jpg", i), image);
        writer.writeMember(String.format("r%05d.cls", i), "42\n".getBytes());
      }
    }
    return bytes.toByteArray();
  }

  /** The names of the members, their data skipped. */
  private static List<String> names(InputStream in) throws IOException {
    List<String> names = new ArrayList<>();
    try (TarReader reader = new TarReader(in, "records.tar", ArchiveLimits.DEFAULT)) {
      for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
        names.add(member.name());
      }
    }
    return names;
  }

  /** An archive in memory whose skips move past bytes without reading them, as a local file's do. */
  private static final class SeekingStream extends InputStream {
    private final byte[] bytes;
    private int position;
    long read;
    long skipped;
    int reads;

    SeekingStream(byte[] bytes) {
      this.bytes = bytes;
    }

    @Override
    public int read() {
      throw new AssertionError("read a byte at a time");
    }

    @Override
    public int read(byte[] buffer, int offset, int length) {
      if (position == bytes.length) {
        return -1;
      }
      int n = Math.min(length, bytes.length - position);
      System.arraycopy(bytes, position, buffer, offset, n);
      position += n;
      read += n;
      reads++;
      return n;
    }

    @Override
    public long skip(long count) {
      long n = Math.min(count, bytes.length - position);
      position += (int) n;
      skipped += n;
      return n;
    }
  }
}
