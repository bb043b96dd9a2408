package dev.quarry.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BlockChecksumsTest {
  private static final int BLOCK = BlockChecksums.BLOCK_BYTES;
  private static final String ON_CHANGE = "the input changed; rerun";

  /** 3.5 blocks of random bytes, their checksums taken as they are written in uneven writes. */
  private static byte[] content() {
    byte[] bytes = new byte[3 * BLOCK + BLOCK / 2];
    new Random(7).nextBytes(bytes);
    return bytes;
  }

  private static BlockChecksums checksums(byte[] bytes) {
    BlockChecksums.Builder builder = new BlockChecksums.Builder(ON_CHANGE);
    for (int at = 0; at < bytes.length; ) {
      int n = Math.min(bytes.length - at, 300_007);
      builder.write(bytes, at, n);
      at += n;
    }
    return builder.build();
  }

  private static byte[] read(RangedContent content, long offset, long length) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (InputStream in = content.open(offset, length)) {
      byte[] buffer = new byte[70_001];
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        out.write(buffer, 0, n);
      }
    }
    return out.toByteArray();
  }

  /** Ranges whole, on blocks, inside one block and across several: each the bytes as they are. */
  private static final List<long[]> RANGES = List.of(new long[] {0, 3L * BLOCK + BLOCK / 2}, new long[] {0, BLOCK},
      new long[] {BLOCK, 2L * BLOCK}, new long[] {3L * BLOCK, BLOCK / 2}, new long[] {100, 50},
      new long[] {BLOCK - 10, BLOCK + 20}, new long[] {5, 3L * BLOCK + BLOCK / 2 - 5}, new long[] {BLOCK, 0});

  @Test
  void theSameBytesReadAgainPassInAnyRange() throws Exception {
    byte[] bytes = content();
    RangedContent verified = checksums(bytes).verifying(RangedContent.of(bytes));
    for (long[] range : RANGES) {
      assertThat(read(verified, range[0], range[1])).as(Arrays.toString(range))
          .isEqualTo(Arrays.copyOfRange(bytes, (int) range[0], (int) (range[0] + range[1])));
    }
  }

  /**
   * A byte changed after the checksums were taken fails every range that reads its block (those that end or start
   * inside it too, which read the rest of it to check it) before the block's last byte is given; others pass.
   */
  @Test
  void aChangedByteFailsEveryRangeOverItsBlockBeforeTheBlockIsGiven() throws Exception {
    byte[] bytes = content();
    BlockChecksums checksums = checksums(bytes);
    byte[] changed = bytes.clone();
    int at = BLOCK + 12_345; // in block 1
    changed[at] ^= 1;
    RangedContent verified = checksums.verifying(RangedContent.of(changed));
    for (long[] range : RANGES) {
      long start = range[0];
      long end = range[0] + range[1];
      boolean readsBlockOne = range[1] > 0 && start < 2L * BLOCK && end > BLOCK;
      if (readsBlockOne) {
        ByteArrayOutputStream given = new ByteArrayOutputStream();
        assertThatThrownBy(() -> {
          try (InputStream in = verified.open(start, range[1])) {
            in.transferTo(given);
          }
        }).as(Arrays.toString(range)).isInstanceOf(HashedContent.Changed.class)
            .hasMessage("its bytes are not those hashed before it was sent: block 1, from offset " + BLOCK
                + ", differs (" + ON_CHANGE + ")");
        assertThat(given.size()).as("bytes given of " + Arrays.toString(range))
            .isLessThan((int) (Math.min(end, 2L * BLOCK) - start));
      } else {
        assertThat(read(verified, start, range[1])).as(Arrays.toString(range))
            .isEqualTo(Arrays.copyOfRange(changed, (int) start, (int) end));
      }
    }
  }

  @Test
  void contentThatEndsEarlyFails() {
    byte[] bytes = content();
    BlockChecksums checksums = checksums(bytes);
    RangedContent shorter = new RangedContent() {
      @Override
      public long length() {
        return bytes.length;
      }

      @Override
      public InputStream open(long offset, long length) {
        return new java.io.ByteArrayInputStream(bytes, (int) offset, (int) Math.min(length, BLOCK));
      }
    };
    assertThatThrownBy(() -> read(checksums.verifying(shorter), 0, bytes.length))
        .isInstanceOf(HashedContent.Changed.class).hasMessageContaining("they end at offset " + BLOCK);
    assertThatThrownBy(() -> checksums.verifying(RangedContent.of(new byte[10])))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
