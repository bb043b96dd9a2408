package dev.quarry.core.sort.create;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.concurrent.Futures;
import dev.quarry.core.sort.records.RecordEntry;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Fetches the raw bytes of a shard's records in order. Ranges that touch in the same source are coalesced into one
 * ranged read of up to {@value #MAX_SEGMENT} bytes; reads run ahead of the writer on virtual threads, bounded by a
 * request count and a byte budget, and are handed over strictly in order.
 */
final class RecordFetcher {
  static final int MAX_SEGMENT = 8 << 20;

  /** Receives each piece of a record's bytes, in order. */
  interface Pieces {
    void piece(int record, byte[] buffer, int offset, int length, boolean lastOfRecord) throws IOException;
  }

  private final RecordSource source;
  private final int requestsInFlight;
  private final long bytesInFlight;

  RecordFetcher(RecordSource source, int requestsInFlight, long bytesInFlight) {
    this.source = source;
    this.requestsInFlight = requestsInFlight;
    this.bytesInFlight = bytesInFlight;
  }

  private record Piece(int record, int offsetInSegment, int length, boolean lastOfRecord) {}

  private record Segment(int shard, boolean packed, long offset, long length, List<Piece> pieces) {}

  void fetch(List<RecordEntry> entries, Pieces consumer) throws IOException, InterruptedException {
    List<Segment> segments = segments(entries);
    Deque<Future<byte[]>> window = new ArrayDeque<>();
    Deque<Segment> windowSegments = new ArrayDeque<>();
    long windowBytes = 0;
    int next = 0;
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      while (next < segments.size() || !window.isEmpty()) {
        while (next < segments.size() && window.size() < requestsInFlight
            && (window.isEmpty() || windowBytes + segments.get(next).length() <= bytesInFlight)) {
          Segment segment = segments.get(next++);
          window.add(pool.submit(() -> read(segment)));
          windowSegments.add(segment);
          windowBytes += segment.length();
        }
        Segment segment = windowSegments.poll();
        byte[] data = window.poll().get();
        windowBytes -= segment.length();
        for (Piece piece : segment.pieces()) {
          consumer.piece(piece.record(), data, piece.offsetInSegment(), piece.length(), piece.lastOfRecord());
        }
      }
    } catch (ExecutionException e) {
      throw Futures.unwrap(e);
    }
  }

  private byte[] read(Segment segment) throws IOException {
    try (InputStream in = source.open(segment.shard(), segment.packed(), segment.offset(), segment.length())) {
      byte[] data = in.readNBytes((int) segment.length());
      if (data.length != segment.length()) {
        throw new IOException("Cannot read record bytes of input shard " + segment.shard() + ": got " + data.length
            + " of " + segment.length() + " bytes at offset " + segment.offset() + " (the input changed since"
            + " extract; rerun the job)");
      }
      return data;
    }
  }

  /** Groups the records' ranges into segments, joining ranges that touch in the same source. */
  private static List<Segment> segments(List<RecordEntry> entries) {
    List<Segment> segments = new ArrayList<>();
    int shard = -1;
    boolean packed = false;
    long start = 0;
    long end = 0;
    List<Piece> pieces = new ArrayList<>();
    for (int record = 0; record < entries.size(); record++) {
      RecordEntry entry = entries.get(record);
      List<RawRange> ranges = entry.ranges();
      for (int i = 0; i < ranges.size(); i++) {
        RawRange range = ranges.get(i);
        if (range.length() > Integer.MAX_VALUE - 16) {
          throw new IllegalArgumentException("Cannot fetch record " + entry.key() + ": a member is larger than 2 GiB");
        }
        boolean joins = !pieces.isEmpty() && entry.shard() == shard && entry.packed() == packed
            && range.offset() == end && end - start + range.length() <= MAX_SEGMENT;
        if (!joins && !pieces.isEmpty()) {
          segments.add(new Segment(shard, packed, start, end - start, pieces));
          pieces = new ArrayList<>();
        }
        if (pieces.isEmpty()) {
          shard = entry.shard();
          packed = entry.packed();
          start = range.offset();
          end = range.offset();
        }
        pieces.add(new Piece(record, (int) (end - start), (int) range.length(), i == ranges.size() - 1));
        end += range.length();
      }
    }
    if (!pieces.isEmpty()) {
      segments.add(new Segment(shard, packed, start, end - start, pieces));
    }
    return segments;
  }
}
