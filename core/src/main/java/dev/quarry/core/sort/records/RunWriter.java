package dev.quarry.core.sort.records;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;

/** Writes record entries as an LZ4-framed run: a magic line, then entries each behind a marker byte, then an end. */
public final class RunWriter implements AutoCloseable {
  static final byte[] MAGIC = {'Q', 'R', 'U', 'N', '1'};
  static final int ENTRY = 1;
  static final int END = 0;

  private final DataOutputStream out;
  private long entries;

  public RunWriter(OutputStream target) throws IOException {
    this.out = new DataOutputStream(new BufferedOutputStream(new LZ4FrameOutputStream(target,
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

  /** Writes the end marker and closes the target; a run without its end marker is refused when read. */
  @Override
  public void close() throws IOException {
    out.writeByte(END);
    out.close();
  }
}
