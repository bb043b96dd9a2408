package dev.quarry.core.sort.records;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;

/**
 * Writes record entries as an LZ4-framed run: a magic line, then entries each behind a marker byte, then an end. The
 * run exists only once {@link #finish()} ran: closed without it (its writer failed), it is discarded.
 */
public final class RunWriter implements AutoCloseable {
  static final byte[] MAGIC = {'Q', 'R', 'U', 'N', '1'};
  static final int ENTRY = 1;
  static final int END = 0;
  /** About what a writer holds besides its storage's buffers: an LZ4 block and its compressed copy, 64 KiB more. */
  public static final long BUFFER_BYTES = 576L << 10;

  private final RunOutput target;
  private final DataOutputStream out;
  private long entries;
  private long bytes;

  public RunWriter(RunOutput target) throws IOException {
    this.target = target;
    // The LZ4 frame's end is written when its stream closes; the target commits or discards after that.
    OutputStream unclosed = new FilterOutputStream(target.stream()) {
      @Override
      public void write(int b) throws IOException {
        out.write(b);
        bytes++;
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        bytes += len;
      }

      @Override
      public void close() throws IOException {
        flush();
      }
    };
    this.out = new DataOutputStream(new BufferedOutputStream(new LZ4FrameOutputStream(unclosed,
        LZ4FrameOutputStream.BLOCKSIZE.SIZE_256KB), 1 << 16));
    out.write(MAGIC);
  }

  public void write(RecordEntry entry) throws IOException {
    out.writeByte(ENTRY);
    RecordEntryCodec.write(out, entry);
    entries++;
  }

  public long entries() {
    return entries;
  }

  /** The bytes written to the run so far: its size, once finished. */
  public long bytes() {
    return bytes;
  }

  /** Writes the end marker and commits the run; a run without its end marker is refused when read. */
  public void finish() throws IOException {
    out.writeByte(END);
    out.close();
    target.commit();
  }

  /** Discards the run unless {@link #finish()} ran. */
  @Override
  public void close() throws IOException {
    target.close();
  }
}
