package dev.quarry.core.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * The CRC-32C of each block of {@value #BLOCK_BYTES} bytes of content, taken in a first pass that hashes it, so that
 * a second pass reading it again (an upload sending its parts from where the bytes lie) checks it reads the same
 * bytes: what they are read from may change in between (a sort's input, rewritten), and over HTTPS nothing else
 * compares what is sent with the SHA-256 of the first pass, which a manifest then names. CRC-32C runs at memory speed
 * (a CPU instruction), a small part of the SHA-256 that the first pass costs.
 */
public final class BlockChecksums {
  static final int BLOCK_BYTES = 1 << 20;

  private final int[] crcs;
  private final long length;
  private final String onChange;

  private BlockChecksums(int[] crcs, long length, String onChange) {
    this.crcs = crcs;
    this.length = length;
    this.onChange = onChange;
  }

  /**
   * Takes the checksums of the bytes written to it, in order; {@code onChange} says what a second pass that reads
   * other bytes means and what to do ("the input changed since extract; rerun the job").
   */
  public static final class Builder extends OutputStream {
    private final String onChange;
    private final CRC32C crc = new CRC32C();
    private int[] crcs = new int[16];
    private int blocks;
    private long written;

    public Builder(String onChange) {
      this.onChange = Objects.requireNonNull(onChange, "onChange");
    }

    @Override
    public void write(int b) {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
      Objects.checkFromIndexSize(offset, length, bytes.length);
      while (length > 0) {
        int inBlock = (int) Math.min(length, BLOCK_BYTES - written % BLOCK_BYTES);
        crc.update(bytes, offset, inBlock);
        written += inBlock;
        offset += inBlock;
        length -= inBlock;
        if (written % BLOCK_BYTES == 0) {
          endBlock();
        }
      }
    }

    private void endBlock() {
      if (blocks == crcs.length) {
        crcs = Arrays.copyOf(crcs, crcs.length * 2);
      }
      crcs[blocks++] = (int) crc.getValue();
      crc.reset();
    }

    /** The checksums of the bytes written: a last block shorter than the others counts too. */
    public BlockChecksums build() {
      if (written % BLOCK_BYTES != 0) {
        endBlock();
      }
      return new BlockChecksums(Arrays.copyOf(crcs, blocks), written, onChange);
    }
  }

  /**
   * {@code content} read again: each stream fails with {@link HashedContent.Changed} before it gives the last byte of
   * a block whose bytes are not those of the first pass, so that an upload sending it never completes with them. A
   * range that starts or ends inside a block reads the rest of that block too, to check it (parts of an upload start
   * on whole blocks, so in practice none does).
   */
  RangedContent verifying(RangedContent content) {
    if (content.length() != length) {
      throw new IllegalArgumentException("Invalid content: " + content.length() + " bytes, where the checksums"
          + " cover " + length);
    }
    return new RangedContent() {
      @Override
      public long length() {
        return length;
      }

      @Override
      public InputStream open(long offset, long bytes) throws IOException {
        ObjectKeys.checkRange(offset, bytes);
        if (offset + bytes > length) {
          throw new IllegalArgumentException("Invalid range: " + bytes + " bytes at " + offset + " of content of "
              + length);
        }
        return new Verifying(content, offset, offset + bytes);
      }
    };
  }

  /** The bytes [start, end) of the content, read from the block start below {@code start} to the block end past end. */
  private final class Verifying extends InputStream {
    private final RangedContent content;
    private final long start;
    private final long end;
    private final CRC32C crc = new CRC32C();
    private InputStream in;
    /** Where the next byte read from {@link #in} lies in the content. */
    private long position;

    Verifying(RangedContent content, long start, long end) {
      this.content = content;
      this.start = start;
      this.end = end;
      this.position = start - start % BLOCK_BYTES;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int wanted) throws IOException {
      Objects.checkFromIndexSize(offset, wanted, buffer.length);
      if (wanted == 0) {
        return 0;
      }
      if (in == null) {
        long blocksEnd = Math.min(length, Math.ceilDiv(end, BLOCK_BYTES) * BLOCK_BYTES);
        in = content.open(position, blocksEnd - position);
        passOver(start - position); // the block's bytes before the range: checked, not given
      }
      if (position >= end) {
        return -1;
      }
      long blockEnd = Math.min(length, (position / BLOCK_BYTES + 1) * BLOCK_BYTES);
      int n = in.read(buffer, offset, (int) Math.min(wanted, Math.min(end, blockEnd) - position));
      if (n < 0) {
        throw changed("they end at offset " + position);
      }
      crc.update(buffer, offset, n);
      position += n;
      if (position == blockEnd) {
        check();
      } else if (position == end) {
        passOver(blockEnd - position); // the block's bytes after the range: checked before its last are given
      }
      return n;
    }

    /** Reads {@code count} bytes into the checksum alone, checking the block where they end it. */
    private void passOver(long count) throws IOException {
      byte[] scratch = new byte[(int) Math.min(count, 1 << 16)];
      for (long left = count; left > 0; ) {
        int n = in.read(scratch, 0, (int) Math.min(left, scratch.length));
        if (n < 0) {
          throw changed("they end at offset " + position);
        }
        crc.update(scratch, 0, n);
        position += n;
        left -= n;
        if (position % BLOCK_BYTES == 0 || position == length) {
          check();
        }
      }
    }

    private void check() throws HashedContent.Changed {
      int block = (int) ((position - 1) / BLOCK_BYTES);
      if ((int) crc.getValue() != crcs[block]) {
        throw changed("block " + block + ", from offset " + (long) block * BLOCK_BYTES + ", differs");
      }
      crc.reset();
    }

    private HashedContent.Changed changed(String how) {
      return new HashedContent.Changed("its bytes are not those hashed before it was sent: " + how + " (" + onChange
          + ")");
    }

    @Override
    public void close() throws IOException {
      if (in != null) {
        in.close();
      }
    }
  }
}
