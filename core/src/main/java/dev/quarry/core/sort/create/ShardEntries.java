package dev.quarry.core.sort.create;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.records.RunMerger;
import dev.quarry.core.sort.records.RunReader;
import dev.quarry.core.sort.records.RunStorage;
import dev.quarry.core.sort.records.RunWriter;
import dev.quarry.core.sort.records.StoreRunStorage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * One output shard's record entries, in plan order, read from the first as often as needed (to gather its bytes, to
 * convert it, to store a piece's entries). They are held in the heap while the create worker's {@link Spool} has
 * room for them, and past it wait on the worker's disk: a shard of 1 KiB records in 256 MiB is some 260,000 entries,
 * and a worker of a small budget cannot hold one (the least budget's heap ran out at 240,000).
 */
final class ShardEntries implements AutoCloseable {
  /** Entries read one at a time, from the first; null after the last. */
  interface Cursor extends AutoCloseable {
    RecordEntry next() throws IOException;

    @Override
    void close() throws IOException;
  }

  /**
   * Where a create worker keeps the entries of the shards it gathers: the heap, up to {@code allowance} estimated
   * bytes across all of them at once and the readers open on runs, then runs in its own disk's folder. A shard that
   * would pass it writes what it holds there and goes on there; its room is given back when it is closed.
   */
  static final class Spool {
    /**
     * What a reader of a run of unknown size holds while open ({@link RunMerger#readerBytes}, a whole window): a
     * piece's entries in the scratch store.
     */
    static final long READER_BYTES = RunMerger.readerBytes(Long.MAX_VALUE);

    private final RunStorage disk;
    private final long allowance;
    private long held;
    private long runs;
    /** Entries of finished shards, and their estimated heap bytes: what an entry of this job takes. */
    private long entriesSeen;
    private long bytesSeen;

    Spool(Path folder, long allowance) {
      this.disk = StoreRunStorage.onOwnDisk(folder, "an output shard's record entries");
      this.allowance = allowance;
    }

    /** A shard's entries, none yet. */
    ShardEntries entries() {
      return new ShardEntries(this);
    }

    private synchronized boolean take(long bytes) {
      if (held + bytes > allowance) {
        return false;
      }
      held += bytes;
      return true;
    }

    private synchronized void giveBack(long bytes) {
      held -= bytes;
    }

    /** Room that must be had, past the allowance if need be: a reader cannot wait for entries to go. */
    private synchronized void hold(long bytes) {
      held += bytes;
    }

    /**
     * The entries of run {@code name} in {@code storage}, from the first: its reader's {@code readerBytes} count in the
     * room until it is closed, so that a shard added while others are read goes to disk rather than past it. Several
     * readers of one run may be open at once (gathering, converting, uploading).
     */
    Cursor cursor(RunStorage storage, String name, long readerBytes) throws IOException {
      hold(readerBytes);
      RunReader reader;
      try {
        reader = new RunReader(storage.open(name), name);
      } catch (IOException | RuntimeException e) {
        giveBack(readerBytes);
        throw e;
      }
      return new Cursor() {
        private boolean closed;

        @Override
        public RecordEntry next() throws IOException {
          return reader.next();
        }

        @Override
        public void close() throws IOException {
          if (closed) {
            return;
          }
          closed = true;
          try {
            reader.close();
          } finally {
            giveBack(readerBytes);
          }
        }
      };
    }

    /**
     * The estimated heap bytes of an entry of the shards finished so far, or {@code otherwise} before any: batches are
     * sized by it, so that a job of long keys does not pass the room with the last shards of every batch.
     */
    synchronized long bytesPerEntry(long otherwise) {
      return entriesSeen == 0 ? otherwise : Math.ceilDiv(bytesSeen, entriesSeen);
    }

    private synchronized void seen(long entries, long bytes) {
      entriesSeen += entries;
      bytesSeen += bytes;
    }

    private synchronized String nextRun() {
      return String.format("entries-%08d.run", runs++);
    }

    /** How many shards' entries went to the worker's disk, one run each. */
    synchronized long runs() {
      return runs;
    }

    /** Estimated heap bytes held now, for tests. */
    synchronized long heldBytes() {
      return held;
    }
  }

  private final Spool spool;
  private List<RecordEntry> held = new ArrayList<>();
  private long heldBytes;
  private String run;
  private long runBytes;
  private RunWriter writer;
  private boolean finished;
  private long count;
  private long bytes;
  /** The entries' estimated heap bytes, held or not. */
  private long estimated;

  private ShardEntries(Spool spool) {
    this.spool = spool;
  }

  /** Adds the next entry: held, or written to the shard's run once the spool has no room for it. */
  void add(RecordEntry entry) throws IOException {
    if (finished) {
      throw new IllegalStateException("Entries added to a finished shard");
    }
    count++;
    for (RawRange range : entry.ranges()) {
      bytes += range.length();
    }
    long estimate = entry.estimatedHeapBytes();
    estimated += estimate;
    if (writer == null) {
      if (spool.take(estimate)) {
        held.add(entry);
        heldBytes += estimate;
        return;
      }
      run = spool.nextRun();
      writer = new RunWriter(spool.disk.create(run));
      for (RecordEntry earlier : held) {
        writer.write(earlier);
      }
      held = List.of();
      spool.giveBack(heldBytes);
      heldBytes = 0;
    }
    writer.write(entry);
  }

  /** Ends the entries: they can be read from now on. */
  ShardEntries finish() throws IOException {
    if (finished) {
      return this;
    }
    if (writer != null) {
      writer.finish();
      runBytes = writer.bytes();
      writer.close();
      writer = null;
    }
    finished = true;
    spool.seen(count, estimated);
    return this;
  }

  long count() {
    return count;
  }

  /** The records' raw bytes: the lengths of their ranges. */
  long bytes() {
    return bytes;
  }

  boolean isEmpty() {
    return count == 0;
  }

  /** Whether the entries wait on the worker's disk. */
  boolean onDisk() {
    return run != null;
  }

  /** What a reader of the entries on disk holds ({@link RunMerger#readerBytes} of their run); 0 while held. */
  long readerBytes() {
    return run == null ? 0 : RunMerger.readerBytes(runBytes);
  }

  /** The entries from the first; several cursors may read at once. */
  Cursor cursor() throws IOException {
    if (!finished) {
      throw new IllegalStateException("Entries read before they were finished");
    }
    if (run == null) {
      Iterator<RecordEntry> iterator = held.iterator();
      return new Cursor() {
        @Override
        public RecordEntry next() {
          return iterator.hasNext() ? iterator.next() : null;
        }

        @Override
        public void close() {}
      };
    }
    return spool.cursor(spool.disk, run, readerBytes());
  }

  /** Closes each of {@code entries}: the first failure is thrown, the others suppressed by it. */
  static void closeAll(Iterable<ShardEntries> entries) throws IOException {
    IOException failure = null;
    for (ShardEntries shard : entries) {
      try {
        shard.close();
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Closes each of {@code entries} after {@code failure}, which a failure to close one is added to. */
  static void closeAfter(Iterable<ShardEntries> entries, Throwable failure) {
    try {
      closeAll(entries);
    } catch (IOException e) {
      failure.addSuppressed(e);
    }
  }

  /** Gives back the room held, and deletes the run if there is one. */
  @Override
  public void close() throws IOException {
    spool.giveBack(heldBytes);
    heldBytes = 0;
    held = List.of();
    if (writer != null) {
      writer.close();
      writer = null;
    }
    if (run != null) {
      spool.disk.delete(run);
    }
  }
}
