package dev.quarry.core.sort.create;

import dev.quarry.core.store.FileRangeStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a create worker's store reads streamed past, kept on its local disk for its later batches. A batch holds a
 * few of the worker's shards, whose records a shuffle spreads all through the inputs: its reads, merged across gaps
 * of up to 1 MiB, stream nearly every input whole, and each later batch streamed them again (a single create worker
 * of 1 KiB records into 256 MiB shards gathers batches of 6 shards under a 1Gi budget, so it read its input a sixth
 * of its shard count times). A read kept here goes, gaps and all, into one local file (appended, so one file however
 * many sources); a later batch's record that lies in a kept read is read from the file, so each input byte crosses
 * the store once per worker. The file takes at most the bytes the worker streamed: its share of the input. Kept
 * reads of one source may overlap (a later batch's read across a gap that held no record of it); a record is then
 * looked for in the read starting last before it, and read from the store again if that one does not hold it.
 */
final class KeptBytes implements AutoCloseable {
  private final Path file;
  private final FileChannel channel;
  private final AtomicLong end = new AtomicLong();
  /** The kept reads of each source, by their start in the source. */
  private final Map<String, TreeMap<Long, Kept>> bySource = new ConcurrentHashMap<>();

  /** Source bytes [offset, offset + length), kept at {@code filePosition} of the file. */
  record Kept(long offset, long length, long filePosition) {
    boolean holds(long from, long bytes) {
      return from >= offset && from + bytes <= offset + length;
    }
  }

  KeptBytes(Path file) throws IOException {
    this.file = file;
    this.channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
  }

  /** The kept read of {@code source} holding bytes [offset, offset + length) whole, or null. */
  Kept holding(String source, long offset, long length) {
    TreeMap<Long, Kept> kept = bySource.get(source);
    if (kept == null) {
      return null;
    }
    Map.Entry<Long, Kept> floor;
    synchronized (kept) {
      floor = kept.floorEntry(offset);
    }
    return floor != null && floor.getValue().holds(offset, length) ? floor.getValue() : null;
  }

  /** Opens bytes [offset, offset + length) of {@code kept}, which holds them. */
  InputStream open(Kept kept, long offset, long length) {
    long from = kept.filePosition() + offset - kept.offset();
    return FileRangeStream.sharing(channel, file.toString(), from, from + length);
  }

  /** Starts keeping a read of {@code source}: its bytes are written as they stream, and kept once all are. */
  Keeping keep(String source, long offset, long length) {
    return new Keeping(source, new Kept(offset, length, end.getAndAdd(length)));
  }

  /** One read being kept: every byte of it is written, in order, then {@link #done} makes it readable. */
  final class Keeping {
    private final String source;
    private final Kept kept;
    private long written;

    private Keeping(String source, Kept kept) {
      this.source = source;
      this.kept = kept;
    }

    void write(byte[] bytes, int from, int length) throws IOException {
      ByteBuffer buffer = ByteBuffer.wrap(bytes, from, length);
      while (buffer.hasRemaining()) {
        written += channel.write(buffer, kept.filePosition() + written);
      }
    }

    /** Makes the read's bytes readable from the file; a read that failed midway is never kept. */
    void done() {
      if (written != kept.length()) {
        throw new IllegalStateException("A kept read of " + source + " wrote " + written + " bytes, not "
            + kept.length());
      }
      TreeMap<Long, Kept> reads = bySource.computeIfAbsent(source, k -> new TreeMap<>());
      synchronized (reads) {
        reads.put(kept.offset(), kept);
      }
    }
  }

  /** Bytes written to the file. */
  long bytes() {
    return end.get();
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
