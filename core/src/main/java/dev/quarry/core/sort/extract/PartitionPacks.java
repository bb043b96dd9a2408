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

/**
 * One extract worker's records' bytes, partition by partition, for a job whose records spread over partitions: each
 * input shard is first spooled to a local file as raw tar ({@link #spool()}), then each of its records is appended
 * to its partition's local segment file ({@link #move}), and at the end the segments go, one after the other, into
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

  /** Where input shards are spooled while they are read: local files, read back by {@link #move}. */
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
   * Appends the bytes of each of {@code entries} (one spooled input shard's) to its partition's segment, then deletes
   * the spooled shard; returns the entries pointing into their segments, as one range each from the segment's start.
   * Waits until every shard before it is moved or {@link #pass passed over}.
   */
  public List<RecordEntry> move(int shard, List<RecordEntry> entries, int[] partitionOf) throws IOException {
    awaitTurn(shard);
    try {
      return moveInTurn(shard, entries, partitionOf);
    } finally {
      pass(shard);
    }
  }

  private void awaitTurn(int shard) throws InterruptedIOException {
    synchronized (finished) {
      while (next < shard) {
        try {
          finished.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("Cannot pack input shard " + shard + ": interrupted");
        }
      }
    }
  }

  /** Marks input shard {@code shard} as done (moved, missing or failed), so that the shards after it can move. */
  public void pass(int shard) {
    synchronized (finished) {
      if (shard >= next) {
        finished.add(shard);
      }
      while (finished.remove(next)) {
        next++;
      }
      finished.notifyAll();
    }
  }

  private List<RecordEntry> moveInTurn(int shard, List<RecordEntry> entries, int[] partitionOf) throws IOException {
    List<RecordEntry> moved = new ArrayList<>(entries.size());
    Path file = spooled(shard);
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
      for (int i = 0; i < entries.size(); i++) {
        RecordEntry entry = entries.get(i);
        int partition = partitionOf[i];
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
        moved.add(new RecordEntry(entry.key(), entry.shard(), entry.position(), true,
            List.of(new RawRange(offset, entry.size())), entry.size(), entry.contentKey(), partition));
      }
    }
    Files.delete(file);
    return moved;
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
