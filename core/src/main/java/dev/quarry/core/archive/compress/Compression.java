package dev.quarry.core.archive.compress;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.SourceInput;
import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import net.jpountz.lz4.LZ4FrameInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import org.apache.commons.io.IOUtils;

/**
 * The stream compressions of tar shards: gzip (several members allowed, as pigz writes) and the LZ4 frame format (as
 * the {@code lz4} command and AIStore write it: concatenated and skippable frames allowed). Corrupt compressed data
 * becomes an {@link ArchiveException} naming the shard, while a failure of the source stream itself passes through
 * unchanged, so a network error is never mistaken for a corrupt shard.
 */
public final class Compression {
  /** 4 MiB blocks, independent, with a content checksum: what {@code lz4 -t} verifies. */
  private static final LZ4FrameOutputStream.BLOCKSIZE LZ4_BLOCK = LZ4FrameOutputStream.BLOCKSIZE.SIZE_4MB;

  private Compression() {}

  public static InputStream gunzip(InputStream source, String shard, ArchiveLimits limits) throws IOException {
    SourceInput tagged = new SourceInput(source);
    try {
      // The JDK's GZIPInputStream recurses once per member, so a shard of many empty members overflows the stack;
      // this reader loops.
      return new Labelled(new GzipCompressorInputStream(new BufferedInputStream(tagged, 1 << 16), true), shard,
          "gzip", limits);
    } catch (SourceInput.SourceFailure e) {
      throw e.getCause();
    } catch (IOException e) {
      throw ArchiveException.of(shard, "corrupt gzip data: " + e.getMessage());
    }
  }

  public static InputStream unlz4(InputStream source, String shard, ArchiveLimits limits) throws IOException {
    SourceInput tagged = new SourceInput(source);
    try {
      return new Labelled(new LZ4FrameInputStream(tagged), shard, "lz4", limits);
    } catch (SourceInput.SourceFailure e) {
      throw e.getCause();
    } catch (IOException | RuntimeException e) {
      throw ArchiveException.of(shard, "corrupt lz4 data: " + e.getMessage());
    }
  }

  /** gzip at the default level 6, with a header carrying no file name and mtime 0, so output is deterministic. */
  public static OutputStream gzip(OutputStream target) throws IOException {
    return new GZIPOutputStream(target, 1 << 16) {
      {
        def.setLevel(Deflater.DEFAULT_COMPRESSION);
      }
    };
  }

  public static OutputStream lz4(OutputStream target) throws IOException {
    return new LZ4FrameOutputStream(target, LZ4_BLOCK, LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE,
        LZ4FrameOutputStream.FLG.Bits.CONTENT_CHECKSUM);
  }

  /** Turns decompressor failures into archive errors and caps how far one shard may expand. */
  private static final class Labelled extends FilterInputStream {
    private final String shard;
    private final String format;
    private final ArchiveLimits limits;
    private long produced;

    Labelled(InputStream in, String shard, String format, ArchiveLimits limits) {
      super(in);
      this.shard = shard;
      this.format = format;
      this.limits = limits;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int read;
      try {
        read = in.read(b, off, len);
      } catch (SourceInput.SourceFailure e) {
        throw e.getCause();
      } catch (IOException | RuntimeException e) {
        throw ArchiveException.of(shard, "corrupt " + format + " data: " + e.getMessage());
      }
      if (read > 0) {
        produced += read;
        if (produced > limits.maxUncompressedBytes()) {
          throw ArchiveException.of(shard, "it expands to more than " + limits.maxUncompressedBytes()
              + " bytes (a decompression bomb, or raise the limit)");
        }
      }
      return read;
    }

    @Override
    public long skip(long n) throws IOException {
      return IOUtils.skip(this, n); // through read(), so skipped bytes are counted and checked too
    }
  }
}
