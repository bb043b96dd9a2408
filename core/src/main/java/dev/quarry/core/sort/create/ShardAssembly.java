package dev.quarry.core.sort.create;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.sort.plan.PlannedShard;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.store.RangeBeyondEndException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Gathers the raw bytes of a create worker's output shards into local files, each record at its place. The pieces
 * needed from one source are read in source order, and neighbours are merged into one read when the gap between them
 * costs less than another request ({@value #GAP_BYTES} bytes: a small ranged GET costs about as much as streaming
 * 1 MiB, measured on MinIO), up to {@value #MAX_READ} bytes a read. So a worker that needs much of an input streams
 * it in large reads, and one that needs a few records reads just those; either way the bytes land where they belong.
 * A local copy of a segment is read with gaps of at most {@value #LOCAL_GAP_BYTES} bytes: a read of a local file
 * costs a system call, about what copying 32 KiB from the page cache does, and a batch holds a share of the
 * partition's shards, so across 1 MiB gaps every batch read the whole partition's segments again (64 times at
 * 4,096 shards a partition).
 * With fewer create workers than partitions, the same rule reads a shard's continuation in the next partitions'
 * segments (with one worker per partition, those are joined from pieces instead: CreatePhase).
 * When batches follow, a read from the store that passes over bytes of others (at least an eighth of it) is kept on
 * local disk, gaps and all, and the later batches read its bytes there ({@link KeptBytes}); reads of an object then
 * follow on from one another (one cut at {@value #MAX_READ} bytes starts where the one before it ended), so that
 * what they keep leaves no gap that every later batch would fetch its records in with small reads. A piece held
 * locally is read from its copy unless a read of the store passes over it anyway (merged across a gap, as the rule
 * above decides: a request costs more than streaming the gap again).
 * A batch's pieces are gathered a chunk at a time, each chunk's pieces within a share of the budget, since a shard may
 * have more records than the heap holds pieces of (240,000 in a shard under the least budget); a chunk that others
 * follow keeps what its reads stream past as a batch does, so a shard gathered in chunks reads its inputs about once.
 */
final class ShardAssembly {
  static final long GAP_BYTES = 1 << 20;
  static final long LOCAL_GAP_BYTES = 32 << 10;
  static final int MAX_READ = 8 << 20;

  /** Bytes copied at a time from a read to the files: small enough to stay out of the heap's humongous regions. */
  private static final int COPY_BUFFER = 256 << 10;
  /** A read is kept when at least 1 / this of it is gaps: bytes other batches may need. */
  private static final int KEEP_GAP_SHARE = 8;

  /**
   * About the heap bytes one piece takes while its chunk is gathered: the piece, its places in two lists, and its
   * share of its read.
   */
  static final long PIECE_HEAP_BYTES = 96;

  private final RecordSource source;
  private final int requestsInFlight;
  private final int piecesPerChunk;

  /** {@code piecesBytes}: the heap bytes of pieces a chunk may hold ({@link #PIECE_HEAP_BYTES} each). */
  ShardAssembly(RecordSource source, int requestsInFlight, long piecesBytes) {
    this.source = source;
    this.requestsInFlight = requestsInFlight;
    this.piecesPerChunk = (int) Math.clamp(piecesBytes / PIECE_HEAP_BYTES, 1, Integer.MAX_VALUE);
  }

  /** Where one piece of a record goes: source bytes [offset, offset + length) to a shard file at filePosition. */
  private record Piece(RecordSource.Source source, int shard, boolean packed, long offset, long length, int file,
      long filePosition) {}

  /** One read of a source and the pieces it serves. */
  private record Read(RecordSource.Source source, int shard, boolean packed, long offset, long length,
      List<Piece> pieces) {
    /** Bytes of the read that no piece of it takes. */
    long gapBytes() {
      return length - pieces.stream().mapToLong(Piece::length).sum();
    }
  }

  /**
   * Writes each shard's records, in plan order, into {@code files} (one per shard, same order); {@code batchesFollow}:
   * keep what the reads stream past for them. When entries of the batch wait on disk (more than the heap holds), the
   * pieces are gathered and read in chunks of about equal size, at most {@code piecesPerChunk} each, so that the
   * heap holds a chunk's, however many records the shards have; a chunk that others follow keeps what its reads
   * stream past for them, as a batch does. Otherwise the batch's pieces, a fraction of its entries' bytes in the
   * heap, are one chunk: a cut through a batch that fits would read the inputs again for nothing.
   */
  void assemble(List<PlannedShard> shards, Map<Long, ShardEntries> entries, List<Path> files,
      boolean batchesFollow) throws IOException, InterruptedException {
    List<FileChannel> channels = new ArrayList<>();
    try {
      for (Path file : files) {
        channels.add(FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING));
      }
      Map<String, List<Piece>> byObject = new HashMap<>();
      long chunkPieces = chunkPieces(shards.stream().map(shard -> entries.get(shard.index())).toList());
      long chunk = 0;
      for (int file = 0; file < shards.size(); file++) {
        long position = 0;
        try (ShardEntries.Cursor cursor = entries.get(shards.get(file).index()).cursor()) {
          for (RecordEntry entry = cursor.next(); entry != null; entry = cursor.next()) {
            for (RawRange range : entry.ranges()) {
              if (chunk == chunkPieces) {
                run(reads(byObject, true), channels, true);
                byObject.clear();
                chunk = 0;
              }
              RecordSource.Source from = source.sourceOf(entry.shard(), entry.packed(), range.offset(),
                  range.length());
              byObject.computeIfAbsent(from.object(), k -> new ArrayList<>()).add(new Piece(from, entry.shard(),
                  entry.packed(), range.offset(), range.length(), file, position));
              position += range.length();
              chunk++;
            }
          }
        }
      }
      run(reads(byObject, batchesFollow), channels, batchesFollow);
    } finally {
      for (FileChannel channel : channels) {
        channel.close();
      }
    }
  }

  /**
   * The pieces of a chunk of a batch of {@code entries}: all of them unless some wait on disk; else the entries split
   * into the fewest chunks of at most {@link #piecesPerChunk}, of about equal size (a record is mostly one piece), so
   * that each chunk that others follow passes over enough of the inputs to keep what it streams past.
   */
  private long chunkPieces(List<ShardEntries> entries) {
    if (entries.stream().noneMatch(ShardEntries::onDisk)) {
      return Long.MAX_VALUE;
    }
    long total = Math.max(1, entries.stream().mapToLong(ShardEntries::count).sum());
    return Math.min(piecesPerChunk, Math.ceilDiv(total, Math.ceilDiv(total, piecesPerChunk)));
  }

  /** The reads that serve the pieces of a chunk, by object; {@code batchesFollow}: keep what they stream past. */
  private List<Read> reads(Map<String, List<Piece>> byObject, boolean batchesFollow) {
    List<Read> reads = new ArrayList<>();
    for (List<Piece> pieces : byObject.values()) {
      pieces.sort(Comparator.comparingLong(Piece::offset));
      List<Piece> inStore = pieces.stream().filter(piece -> !piece.source().local()).toList();
      boolean followOn = batchesFollow && !inStore.isEmpty() && inStore.getFirst().source().streamsGaps();
      // Reads from the object's start only while none of it is held: a later batch's reads from there would stream
      // kept bytes again for nothing.
      List<Read> storeReads = inStore.isEmpty() ? List.of()
          : reads(inStore.getFirst().source(), inStore, followOn, followOn && inStore.size() == pieces.size());
      Map<RecordSource.Source, List<Piece>> held = new LinkedHashMap<>();
      for (Piece piece : pieces) {
        if (piece.source().local()) {
          Read passing = passing(storeReads, piece);
          if (passing != null) {
            passing.pieces().add(piece);
          } else {
            held.computeIfAbsent(piece.source(), k -> new ArrayList<>()).add(piece);
          }
        }
      }
      for (Read read : storeReads) {
        read.pieces().sort(Comparator.comparingLong(Piece::offset));
      }
      reads.addAll(storeReads);
      held.forEach((copy, ofCopy) -> reads.addAll(reads(copy, ofCopy, false, false)));
    }
    return reads;
  }

  /**
   * Merges sorted pieces of one source into reads across gaps of at most its gap; with {@code followOn}, a read cut
   * at {@value #MAX_READ} bytes is followed by one starting where it ended, the gap between them included; with
   * {@code fromStart}, the first read starts at the object's start when its first piece lies within a gap of it.
   */
  private static List<Read> reads(RecordSource.Source source, List<Piece> pieces, boolean followOn,
      boolean fromStart) {
    long gap = source.local() ? LOCAL_GAP_BYTES : GAP_BYTES;
    List<Read> reads = new ArrayList<>();
    List<Piece> current = new ArrayList<>();
    long start = 0;
    long end = 0;
    for (Piece piece : pieces) {
      boolean first = reads.isEmpty() && current.isEmpty();
      boolean near = (!first || fromStart) && piece.offset() - end <= gap;
      boolean joins = !first && near && Math.max(end, piece.offset() + piece.length()) - start <= MAX_READ;
      long previousEnd = end;
      if (!joins && !current.isEmpty()) {
        reads.add(new Read(source, current.get(0).shard(), current.get(0).packed(), start, end - start,
            current));
        current = new ArrayList<>();
      }
      if (current.isEmpty()) {
        start = near && (followOn || first) ? previousEnd : piece.offset();
        end = piece.offset();
      }
      current.add(piece);
      end = Math.max(end, piece.offset() + piece.length());
    }
    if (!current.isEmpty()) {
      reads.add(new Read(source, current.get(0).shard(), current.get(0).packed(), start, end - start,
          current));
    }
    return reads;
  }

  /** The read of {@code reads} (in order, not overlapping) whose bytes hold {@code piece}'s whole, or null. */
  private static Read passing(List<Read> reads, Piece piece) {
    int low = 0;
    int high = reads.size() - 1;
    while (low <= high) {
      int middle = (low + high) >>> 1;
      Read read = reads.get(middle);
      if (piece.offset() < read.offset()) {
        high = middle - 1;
      } else if (piece.offset() >= read.offset() + read.length()) {
        low = middle + 1;
      } else {
        return piece.offset() + piece.length() <= read.offset() + read.length() ? read : null;
      }
    }
    return null;
  }

  /**
   * Runs the reads on virtual threads, at most {@code requestsInFlight} at once; each streams its pieces to their
   * places through one small buffer, so memory does not grow with the size of a read.
   */
  private void run(List<Read> reads, List<FileChannel> channels, boolean batchesFollow)
      throws IOException, InterruptedException {
    InFlight.inOrder(reads, requestsInFlight, read -> {
      copy(read, channels, batchesFollow && read.gapBytes() * KEEP_GAP_SHARE >= read.length()
          ? source.keeping(read.source(), read.offset(), read.length()) : null);
      return null;
    });
  }

  /**
   * Streams one read: writes each piece where it belongs, and skips the gaps between them, or, when {@code keeping},
   * writes every byte of the read there too.
   */
  private void copy(Read read, List<FileChannel> channels, KeptBytes.Keeping keeping) throws IOException {
    byte[] buffer = new byte[(int) Math.min(COPY_BUFFER, read.length())];
    InputStream opened;
    try {
      opened = source.open(read.shard(), read.packed(), read.offset(), read.length());
    } catch (RangeBeyondEndException e) {
      throw RecordSource.inputChanged(read.shard(), e);
    }
    try (InputStream in = opened) {
      long position = read.offset();
      for (Piece piece : read.pieces()) {
        if (piece.offset() < position) {
          throw new IllegalStateException("Pieces of input shard " + read.shard() + " overlap at offset "
              + piece.offset());
        }
        pass(in, piece.offset() - position, read, buffer, keeping);
        FileChannel channel = channels.get(piece.file());
        long filePosition = piece.filePosition();
        for (long left = piece.length(); left > 0; ) {
          int n = in.readNBytes(buffer, 0, (int) Math.min(buffer.length, left));
          if (n == 0) {
            throw shortRead(read);
          }
          if (keeping != null) {
            keeping.write(buffer, 0, n);
          }
          ByteBuffer bytes = ByteBuffer.wrap(buffer, 0, n);
          while (bytes.hasRemaining()) {
            filePosition += channel.write(bytes, filePosition);
          }
          left -= n;
        }
        position = piece.offset() + piece.length();
      }
    } catch (EOFException e) {
      throw RecordSource.inputChanged(read.shard(), e); // a file cut short after it was opened
    }
    if (keeping != null) {
      keeping.done();
    }
  }

  /** Passes over a gap of {@code bytes}: skipped, or written to what keeps the read. */
  private void pass(InputStream in, long bytes, Read read, byte[] buffer, KeptBytes.Keeping keeping)
      throws IOException {
    if (keeping == null) {
      try {
        in.skipNBytes(bytes);
      } catch (EOFException e) {
        throw shortRead(read);
      }
      return;
    }
    for (long left = bytes; left > 0; ) {
      int n = in.readNBytes(buffer, 0, (int) Math.min(buffer.length, left));
      if (n == 0) {
        throw shortRead(read);
      }
      keeping.write(buffer, 0, n);
      left -= n;
    }
  }

  private static IOException shortRead(Read read) {
    return RecordSource.inputChanged(read.shard(), "it ended before " + read.length() + " bytes at offset "
        + read.offset(), null);
  }
}
