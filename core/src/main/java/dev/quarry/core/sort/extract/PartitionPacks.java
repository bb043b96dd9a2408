package dev.quarry.core.sort.extract;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.store.FileRangeStream;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.RangedContent;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One extract worker's records' bytes, partition by partition, for a job whose records spread over partitions: each
 * input shard is first spooled to a local file as raw tar ({@link #spool()}), then each of its records is appended
 * to its partition's local segment file ({@link #moving}), and at the end the segments go, one after the other, into
 * one pack object, followed by their {@link SegmentTable}. So a create worker reads its partition's records with one
 * ranged GET per extract worker (where they are is in the plan's document of the partition's segments), and memory
 * holds none of the bytes. Shards are moved in input order whatever order they are read in, so every attempt
 * over the same inputs writes the same pack bytes.
 */
public final class PartitionPacks implements AutoCloseable {
  private final Path folder;
  private final FileChannel[] segments;
  private final long[] sizes;
  /** The first input shard not yet moved nor passed over, and those after it that are. */
  private int next;
  private final Set<Integer> finished = new HashSet<>();
  /**
   * Guards {@link #next} and {@link #finished}. A lock, not a monitor: the shards waiting for their turn are virtual
   * threads, and while one holds its turn it may spill the sorter, which waits for virtual threads of its own (on
   * Java 21 a virtual thread waiting in a monitor keeps its carrier; docs/development.md).
   */
  private final ReentrantLock turns = new ReentrantLock();
  private final Condition turn = turns.newCondition();

  /** Packs of the input shards from {@code firstShard} on, moved in their order. */
  public PartitionPacks(Path folder, int partitions, int firstShard) throws IOException {
    this.folder = folder;
    this.next = firstShard;
    this.segments = new FileChannel[partitions];
    this.sizes = new long[partitions];
    Files.createDirectories(folder);
    for (int partition = 0; partition < partitions; partition++) {
      segments[partition] = FileChannel.open(segment(partition),
          StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }
  }

  /** Where input shards are spooled while they are read: local files, read back by {@link #moving}. */
  public PackStore spool() {
    return new PackStore() {
      @Override
      public PackOutput create(int shard) throws IOException {
        return new FilePackOutput(spooled(shard));
      }

      @Override
      public InputStream read(int shard, long offset, long length) throws IOException {
        return new FileRangeStream(FileChannel.open(spooled(shard), StandardOpenOption.READ),
            spooled(shard).toString(), offset, offset + length);
      }
    };
  }

  private Path spooled(int shard) {
    return folder.resolve(String.format("shard-%08d.tar", shard));
  }

  /**
   * Starts moving the records of input shard {@code shard} (spooled) into their partitions' segments, once every shard
   * before it is moved or {@link #pass passed over}; closing the move deletes the spooled shard and lets the next
   * move.
   */
  public ShardMove moving(int shard) throws IOException {
    awaitTurn(shard);
    try {
      return new ShardMove(shard, FileChannel.open(spooled(shard), StandardOpenOption.READ));
    } catch (IOException | RuntimeException e) {
      pass(shard);
      throw e;
    }
  }

  private void awaitTurn(int shard) throws InterruptedIOException {
    turns.lock();
    try {
      while (next < shard) {
        try {
          turn.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("Cannot pack input shard " + shard + ": interrupted");
        }
      }
    } finally {
      turns.unlock();
    }
  }

  /** Marks input shard {@code shard} as done (moved, missing or failed), so that the shards after it can move. */
  public void pass(int shard) {
    turns.lock();
    try {
      if (shard >= next) {
        finished.add(shard);
      }
      while (finished.remove(next)) {
        next++;
      }
      turn.signalAll();
    } finally {
      turns.unlock();
    }
  }

  /** The records of one spooled input shard, moved one by one, in the order given, while it is this shard's turn. */
  public final class ShardMove implements AutoCloseable {
    private final int shard;
    private final FileChannel in;

    private ShardMove(int shard, FileChannel in) {
      this.shard = shard;
      this.in = in;
    }

    /**
     * Appends the bytes of {@code entry} to the segment of {@code partition}; returns the entry pointing into that
     * segment, as one range.
     */
    public RecordEntry move(RecordEntry entry, int partition) throws IOException {
      long offset = sizes[partition];
      FileChannel segment = segments[partition];
      long position = offset;
      for (RawRange range : entry.ranges()) {
        for (long done = 0; done < range.length(); ) {
          long copied = in.transferTo(range.offset() + done, range.length() - done, segment.position(position));
          if (copied <= 0) {
            throw new IOException("Cannot pack record bytes of input shard " + shard + ": its spooled copy ends"
                + " before offset " + (range.offset() + done));
          }
          done += copied;
          position += copied;
        }
      }
      sizes[partition] = position;
      return new RecordEntry(entry.key(), entry.shard(), entry.position(), true,
          List.of(new RawRange(offset, entry.size())), entry.size(), entry.contentKey(), partition);
    }

    @Override
    public void close() throws IOException {
      try {
        in.close();
        Files.deleteIfExists(spooled(shard));
      } finally {
        pass(shard);
      }
    }
  }

  /**
   * Uploads the segments one after the other as the object {@code key}, then their {@link SegmentTable}; returns
   * the bytes of records, where the table starts. The parts are read from the segments as they are sent
   * ({@link ObjectStore#put(String, RangedContent)}): streamed through an upload, a pack of 60 GiB held 5 parts of
   * 128 MiB in the heap, besides the sorter's entries, past a 1Gi budget.
   */
  public long upload(ObjectStore store, String key) throws IOException {
    long[] offsets = new long[segments.length + 1];
    List<RangedContent> pieces = new ArrayList<>();
    for (int partition = 0; partition < segments.length; partition++) {
      offsets[partition + 1] = offsets[partition] + sizes[partition];
      pieces.add(RangedContent.of(segments[partition], segment(partition).toString(), sizes[partition]));
    }
    pieces.add(RangedContent.of(SegmentTable.encode(offsets)));
    long recordBytes = offsets[segments.length];
    store.put(key, RangedContent.concat(pieces));
    return recordBytes;
  }

  /**
   * Closes and deletes the segments, so that their disk is free for what the worker does next. They keep their
   * names until then (not unlinked at open): a kubelet that measures an emptyDir by walking it sees their bytes.
   */
  @Override
  public void close() throws IOException {
    IOException failure = null;
    for (int partition = 0; partition < segments.length; partition++) {
      try {
        if (segments[partition] != null) {
          segments[partition].close();
        }
        Files.deleteIfExists(segment(partition));
      } catch (IOException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private Path segment(int partition) {
    return folder.resolve(String.format("segment-%05d", partition));
  }
}
