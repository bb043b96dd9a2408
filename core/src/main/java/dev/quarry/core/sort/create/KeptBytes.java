package dev.quarry.core.sort.create;

import dev.quarry.core.store.FileRangeStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
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
 * many sources); a later batch's record that lies in a kept read is read from the file. The file takes at most half
 * the space its disk had free when the worker began keeping; past that, and after a write to it fails (a full disk),
 * reads are no longer kept, and later batches read their bytes from the store as before: keeping saves requests and
 * bytes, it never fails a job.
 */
final class KeptBytes implements AutoCloseable {
  private final Path file;
  private final FileChannel channel;
  /** The most bytes the file takes. */
  private final long limit;
  private final AtomicLong end = new AtomicLong();
  /**
   * The kept bytes of each source, by their start in the source, never overlapping: where a read overlaps bytes kept
   * before, only the rest of it is added (its bytes there are the same), so the range starting last before a record
   * is the only one that can hold it.
   */
  private final Map<String, TreeMap<Long, Kept>> bySource = new ConcurrentHashMap<>();

  /** Source bytes [offset, offset + length), kept at {@code filePosition} of the file. */
  record Kept(long offset, long length, long filePosition) {
    boolean holds(long from, long bytes) {
      return from >= offset && from + bytes <= offset + length;
    }

    long end() {
      return offset + length;
    }
  }

  /** Keeps reads in {@code file}, new, up to half the space its disk has free. */
  KeptBytes(Path file) throws IOException {
    this(file, Files.getFileStore(file.getParent()).getUsableSpace() / 2);
  }

  /** Keeps reads in {@code file}, new, up to {@code limit} bytes. */
  KeptBytes(Path file, long limit) throws IOException {
    this.file = file;
    this.limit = limit;
    this.channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
  }

  /** The kept bytes of {@code source} holding bytes [offset, offset + length) whole, or null. */
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

  /**
   * Starts keeping a read of {@code source}: its bytes are written as they stream, and kept once all are. Null when
   * the file has no room for it, or a write to it failed.
   */
  Keeping keep(String source, long offset, long length) {
    long at = end.getAndUpdate(taken -> taken >= 0 && taken + length <= limit ? taken + length : taken);
    if (at < 0 || at + length > limit) {
      return null;
    }
    return new Keeping(source, new Kept(offset, length, at));
  }

  /**
   * One read being kept: every byte of it is written, in order, then {@link #done} makes it readable. A write that
   * fails ends keeping, for this read and every later one.
   */
  final class Keeping {
    private final String source;
    private final Kept kept;
    private long written;
    private boolean failed;

    private Keeping(String source, Kept kept) {
      this.source = source;
      this.kept = kept;
    }

    void write(byte[] bytes, int from, int length) {
      if (failed) {
        return;
      }
      try {
        ByteBuffer buffer = ByteBuffer.wrap(bytes, from, length);
        while (buffer.hasRemaining()) {
          written += channel.write(buffer, kept.filePosition() + written);
        }
      } catch (IOException e) {
        failed = true;
        end.set(-1); // no more: the disk is full, or the file cannot be written
      }
    }

    /** Makes the read's bytes readable from the file, unless a write failed. */
    void done() {
      if (failed) {
        return;
      }
      if (written != kept.length()) {
        throw new IllegalStateException("Cannot keep a read of " + source + ": " + written + " bytes were written"
            + " of its " + kept.length());
      }
      TreeMap<Long, Kept> reads = bySource.computeIfAbsent(source, k -> new TreeMap<>());
      synchronized (reads) {
        long from = kept.offset();
        Map.Entry<Long, Kept> before = reads.floorEntry(from);
        if (before != null) {
          from = Math.max(from, before.getValue().end());
        }
        for (Kept next : List.copyOf(reads.subMap(kept.offset(), true, kept.end(), false).values())) {
          add(reads, from, next.offset());
          from = Math.max(from, next.end());
        }
        add(reads, from, kept.end());
      }
    }

    /** Keeps this read's bytes [from, to) of the source, if any. */
    private void add(TreeMap<Long, Kept> reads, long from, long to) {
      if (from < to) {
        reads.put(from, new Kept(from, to - from, kept.filePosition() + from - kept.offset()));
      }
    }
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
