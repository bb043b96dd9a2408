package dev.quarry.core.sort.records;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import net.jpountz.lz4.LZ4FrameInputStream;

/** Reads a run written by {@link RunWriter}, one entry at a time. */
public final class RunReader implements AutoCloseable {
  private final DataInputStream in;
  private final String name;
  private boolean ended;

  public RunReader(InputStream source, String name) throws IOException {
    this.name = name;
    try {
      this.in = new DataInputStream(new BufferedInputStream(new LZ4FrameInputStream(source), 1 << 16));
      byte[] magic = new byte[RunWriter.MAGIC.length];
      in.readFully(magic);
      if (!Arrays.equals(magic, RunWriter.MAGIC)) {
        throw new IOException("Cannot read run " + name + ": it is not a Quarry run file");
      }
    } catch (IOException e) {
      throw unreadable(e);
    }
  }

  /** The next entry, or null after the last. */
  public RecordEntry next() throws IOException {
    if (ended) {
      return null;
    }
    try {
      int marker = in.readUnsignedByte();
      if (marker == RunWriter.END) {
        ended = true;
        return null;
      }
      if (marker != RunWriter.ENTRY) {
        throw new IOException("Cannot read run " + name + ": unexpected marker " + marker + " (the run is corrupt)");
      }
      return RecordEntryCodec.read(in);
    } catch (IOException e) {
      throw unreadable(e);
    }
  }

  private IOException unreadable(IOException e) {
    if (e.getMessage() != null && e.getMessage().startsWith("Cannot read run ")) {
      return e;
    }
    String why = e instanceof EOFException ? "it ends without its end marker" : "it is truncated or corrupt ("
        + e.getMessage() + ")";
    return new IOException("Cannot read run " + name + ": " + why + "; rerun the phase that wrote it", e);
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
