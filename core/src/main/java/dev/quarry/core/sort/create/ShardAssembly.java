package dev.quarry.core.sort.create;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.concurrent.Futures;
import dev.quarry.core.sort.plan.PlannedShard;
import dev.quarry.core.sort.records.RecordEntry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * Gathers the raw bytes of a create worker's output shards into local files, each record at its place. The pieces
 * needed from one source are read in source order, and neighbours are merged into one read when the gap between them
 * costs less than another request ({@value #GAP_BYTES} bytes: a small ranged GET costs about as much as streaming
 * 1 MiB, measured on MinIO), up to {@value #MAX_READ} bytes a read. So a worker that needs much of an input streams
 * it in large reads, and one that needs a few records reads just those; either way the bytes land where they belong.
 */
final class ShardAssembly {
  static final long GAP_BYTES = 1 << 20;
  static final int MAX_READ = 8 << 20;

  private final RecordSource source;
  private final int requestsInFlight;
  private final long bytesInFlight;

  ShardAssembly(RecordSource source, int requestsInFlight, long bytesInFlight) {
    this.source = source;
    this.requestsInFlight = requestsInFlight;
    this.bytesInFlight = Math.max(bytesInFlight, 2L * MAX_READ);
  }

  /** Where one piece of a record goes: source bytes [offset, offset + length) to a shard file at filePosition. */
  private record Piece(int shard, boolean packed, long offset, long length, int file, long filePosition) {}

  /** One read of a source and the pieces it serves. */
  private record Read(int shard, boolean packed, long offset, long length, List<Piece> pieces) {}

  /** Writes each shard's records, in plan order, into {@code files} (one per shard, same order). */
  void assemble(List<PlannedShard> shards, Map<Long, List<RecordEntry>> entries, List<Path> files)
      throws IOException, InterruptedException {
    Map<String, List<Piece>> bySource = new HashMap<>();
    for (int file = 0; file < shards.size(); file++) {
      long position = 0;
      for (RecordEntry entry : entries.get(shards.get(file).index())) {
        for (RawRange range : entry.ranges()) {
          bySource.computeIfAbsent(entry.shard() + (entry.packed() ? "p" : "i"), k -> new ArrayList<>())
              .add(new Piece(entry.shard(), entry.packed(), range.offset(), range.length(), file, position));
          position += range.length();
        }
      }
    }
    List<Read> reads = new ArrayList<>();
    for (List<Piece> pieces : bySource.values()) {
      pieces.sort(Comparator.comparingLong(Piece::offset));
      reads.addAll(reads(pieces));
    }
    List<FileChannel> channels = new ArrayList<>();
    try {
      for (Path file : files) {
        channels.add(FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING));
      }
      run(reads, channels);
    } finally {
      for (FileChannel channel : channels) {
        channel.close();
      }
    }
  }

  /** Merges sorted pieces of one source into reads across small gaps. */
  private static List<Read> reads(List<Piece> pieces) {
    List<Read> reads = new ArrayList<>();
    List<Piece> current = new ArrayList<>();
    long start = 0;
    long end = 0;
    for (Piece piece : pieces) {
      boolean joins = !current.isEmpty() && piece.offset() - end <= GAP_BYTES
          && Math.max(end, piece.offset() + piece.length()) - start <= MAX_READ;
      if (!joins && !current.isEmpty()) {
        reads.add(new Read(current.get(0).shard(), current.get(0).packed(), start, end - start, current));
        current = new ArrayList<>();
      }
      if (current.isEmpty()) {
        start = piece.offset();
        end = piece.offset();
      }
      current.add(piece);
      end = Math.max(end, piece.offset() + piece.length());
    }
    if (!current.isEmpty()) {
      reads.add(new Read(current.get(0).shard(), current.get(0).packed(), start, end - start, current));
    }
    return reads;
  }

  /** Runs the reads on virtual threads, bounded by request count and bytes in flight. */
  private void run(List<Read> reads, List<FileChannel> channels) throws IOException, InterruptedException {
    Semaphore requests = new Semaphore(requestsInFlight);
    // Bytes in flight, counted in KiB so that a semaphore of ints can hold budgets beyond 2 GiB.
    Semaphore kib = new Semaphore((int) Math.min(Integer.MAX_VALUE, bytesInFlight >> 10));
    List<Future<?>> tasks = new ArrayList<>(reads.size());
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (Read read : reads) {
        int cost = (int) Math.max(1, read.length() >> 10);
        requests.acquire();
        kib.acquire(cost);
        tasks.add(pool.submit(() -> {
          try {
            scatter(read, fetch(read), channels);
          } finally {
            kib.release(cost);
            requests.release();
          }
          return null;
        }));
      }
      for (Future<?> task : tasks) {
        task.get();
      }
    } catch (ExecutionException e) {
      throw Futures.unwrap(e);
    }
  }

  private byte[] fetch(Read read) throws IOException {
    try (InputStream in = source.open(read.shard(), read.packed(), read.offset(), read.length())) {
      byte[] data = in.readNBytes((int) read.length());
      if (data.length != read.length()) {
        throw new IOException("Cannot read record bytes of input shard " + read.shard() + ": got " + data.length
            + " of " + read.length() + " bytes at offset " + read.offset() + " (the input changed since extract;"
            + " rerun the job)");
      }
      return data;
    }
  }

  private static void scatter(Read read, byte[] data, List<FileChannel> channels) throws IOException {
    for (Piece piece : read.pieces()) {
      ByteBuffer bytes = ByteBuffer.wrap(data, (int) (piece.offset() - read.offset()), (int) piece.length());
      long position = piece.filePosition();
      FileChannel channel = channels.get(piece.file());
      while (bytes.hasRemaining()) {
        position += channel.write(bytes, position);
      }
    }
  }
}
