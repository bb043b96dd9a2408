package dev.quarry.core.sort.create;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.fs.KeptOpen;
import dev.quarry.core.sort.extract.PackStore;
import dev.quarry.core.sort.extract.SegmentTable;
import dev.quarry.core.sort.input.InputShard;
import dev.quarry.core.sort.input.StoredInputs;
import dev.quarry.core.sort.plan.PackSegments;
import dev.quarry.core.sort.plan.PlanSummary;
import dev.quarry.core.store.FileRangeStream;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.commons.io.function.IORunnable;

/**
 * Where a record's raw bytes are read from: the input object of a plain tar, its shard's pack, or, when records
 * spread over partitions, the pack of the extract worker that read it (from a local copy of a partition's segment
 * once {@link #fetch} made one); and from what an earlier read from the store kept of them ({@link KeptBytes}).
 */
public final class RecordSource implements AutoCloseable {
  /** What a record's bytes that are not where extract found them mean, and what to do. */
  static final String INPUT_CHANGED = "the input changed since extract; rerun the job";

  private final InputList inputList;
  /** The input shards, their summary read from {@link #inputList} when a record is first read from an input. */
  private StoredInputs inputs;
  private final ReentrantLock inputsLock = new ReentrantLock();
  private final ObjectStores stores;
  private final PackStore packs;
  private final ObjectStore scratchStore;
  private final List<PlanSummary.ExtractPack> partitionPacks;
  /** Where the partitions lie in the packs, each partition's read once for this worker (fetch and entries alike). */
  private final PackSegments segments;
  /** Local copies of segments, by extract worker. */
  private final Map<Integer, Fetched> fetched = new ConcurrentHashMap<>();
  /** Bytes opened in the local copies of segments, and the copies' files opened, for tests of how they are read. */
  private final LongAdder localCopyBytesRead = new LongAdder();
  private final LongAdder localCopyFilesOpened = new LongAdder();
  private final LongAdder keptBytesRead = new LongAdder();
  /** What reads from the store streamed past, for later batches; null until {@link #keepStreamedBytes}. */
  private KeptBytes kept;

  /**
   * The inputs' ranged reads, each opened at its input's first record read and kept for the others until this source
   * closes (a local file then opens once, not once a record: {@link ObjectStore#rangeReads}); past {@link
   * KeptOpen#full}, an input's records are each a {@link ObjectStore#getRange}.
   */
  private final KeptOpen<Integer, ObjectStore.RangeReads> inputReads = new KeptOpen<>();

  /** The store's objects as sources, one instance each (a batch holds a piece of a record for each range). */
  private final Map<Long, Source> objects = new ConcurrentHashMap<>();

  /**
   * Which source a read is of, for grouping neighbouring reads into one: an {@code object} of the store (an input, a
   * shard's pack, an extract worker's pack), or a local {@code copy} of some of its bytes (a fetched segment, a kept
   * read: the {@link Fetched} or {@link KeptBytes.Kept}), read across smaller gaps and never kept; null for the object
   * itself. {@code streamsGaps}: a read of the object across a gap receives the gap's bytes (a store over the network;
   * a local file seeks past them), so keeping them for later batches saves reading them again.
   */
  record Source(String object, boolean streamsGaps, Object copy) {
    boolean local() {
      return copy != null;
    }
  }

  /**
   * A segment's start and length in its pack, and the file holding its copy, open for every read of it until this
   * source is closed.
   */
  private record Fetched(long start, long length, Path file, FileChannel channel) {
    boolean holds(long offset, long bytes) {
      return offset >= start && offset + bytes <= start + length;
    }

    /** Whether the byte at {@code offset} is in the copy (a piece starting at its end is not). */
    boolean holds(long offset) {
      return offset >= start && offset < start + length;
    }
  }

  /** The input shards, read when first needed: with partition packs no record is read from an input. */
  interface InputList {
    StoredInputs read() throws IOException;
  }

  public RecordSource(List<InputShard> inputs, ObjectStores stores, PackStore packs) {
    this(() -> StoredInputs.of(inputs), stores, packs, null, null);
  }

  RecordSource(InputList inputs, ObjectStores stores, PackStore packs, ObjectStore scratchStore,
      PackSegments segments) {
    this.inputList = inputs;
    this.stores = stores;
    this.packs = packs;
    this.scratchStore = scratchStore;
    this.segments = segments;
    this.partitionPacks = segments != null && segments.spread() ? segments.packs() : List.of();
  }

  /**
   * Copies partition {@code partition}'s segment of every extract worker's pack into {@code folder}: a ranged GET of
   * its bytes (where it lies is in the plan's document of the partition's segments), {@value InFlight#SORT_REQUESTS}
   * packs at once (one after another, a worker of 64 extract workers' packs read its share through one connection at a
   * time), so that the partition's records are then read locally in any order.
   */
  void fetch(int partition, Path folder) throws IOException {
    InFlight.all(segments.workersWithPacks(), InFlight.SORT_REQUESTS, worker -> {
      SegmentTable.Segment segment = segments.of(worker, partition);
      String pack = partitionPacks.get(worker).pack();
      Path file = folder.resolve(String.format("segment-%05d", worker));
      try (OutputStream out = Files.newOutputStream(file)) {
        if (segment.length() > 0) {
          try (InputStream in = scratchStore.getRange(pack, segment.start(), segment.length())) {
            in.transferTo(out);
          }
        }
      }
      if (Files.size(file) != segment.length()) {
        throw new IOException("Cannot read partition " + partition + " of " + scratchStore.url(pack) + ": it holds "
            + Files.size(file) + " bytes, not " + segment.length() + " (the scratch was changed; clean it and sort"
            + " again)");
      }
      localCopyFilesOpened.increment();
      Fetched earlier = fetched.put(worker, new Fetched(segment.start(), segment.length(), file,
          FileChannel.open(file, StandardOpenOption.READ)));
      if (earlier != null) {
        earlier.channel().close();
      }
    });
  }

  /**
   * From now on, the reads {@link #keeping} is asked to keep go to {@code kept}, which this source closes, and later
   * reads of their bytes are served from it.
   */
  void keepStreamedBytes(KeptBytes kept) {
    this.kept = kept;
  }

  /**
   * Keeps a read of {@code source} from the store, if this source keeps what it streams ({@link
   * #keepStreamedBytes}); null otherwise.
   */
  KeptBytes.Keeping keeping(Source source, long offset, long length) {
    return kept == null || source.local() || !source.streamsGaps() ? null
        : kept.keep(source.object(), offset, length);
  }

  public InputStream open(int shard, boolean packed, long offset, long length) throws IOException {
    int worker = -1;
    if (packed && !partitionPacks.isEmpty()) {
      worker = workerOf(shard, offset, length);
      Fetched local = fetched.get(worker);
      if (local != null && local.holds(offset, length)) {
        localCopyBytesRead.add(length);
        long from = offset - local.start();
        return FileRangeStream.sharing(local.channel(), local.file().toString(), from, from + length);
      }
    }
    KeptBytes.Kept keptRead = kept == null ? null
        : kept.holding(storeSource(shard, packed, worker).object(), offset, length);
    if (keptRead != null) {
      keptBytesRead.add(length);
      return kept.open(keptRead, offset, length);
    }
    if (worker >= 0) {
      return scratchStore.getRange(partitionPacks.get(worker).pack(), offset, length);
    }
    if (packed) {
      return packs.read(shard, offset, length);
    }
    return inputReads(shard).open(offset, length);
  }

  /**
   * The error for record bytes of input shard {@code shard} that are not there: a range past its end, or a file that
   * ended before the range did (cut short after its first record was read).
   */
  static IOException inputChanged(int shard, IOException cause) {
    return inputChanged(shard, cause.getMessage(), cause);
  }

  /** As {@link #inputChanged(int, IOException)}, saying {@code how} the bytes are not there. */
  static IOException inputChanged(int shard, String how, IOException cause) {
    return new IOException("Cannot read record bytes of input shard " + shard + ": " + how + " (" + INPUT_CHANGED
        + ")", cause);
  }

  /**
   * The ranged reads of input shard {@code shard}: kept open from its first record on, or a {@link
   * ObjectStore#getRange} each once no more inputs can be kept open.
   */
  private ObjectStore.RangeReads inputReads(int shard) throws IOException {
    ObjectStore.RangeReads known = inputReads.get(shard);
    if (known != null) {
      return known;
    }
    Location location = stores.locate(input(shard).url());
    if (!inputReads.full()) {
      ObjectStore.RangeReads opened = location.store().rangeReads(location.key());
      ObjectStore.RangeReads kept = inputReads.keep(shard, opened);
      if (kept != null) {
        return kept;
      }
      opened.close(); // the others took the last places
    }
    return (offset, length) -> location.store().getRange(location.key(), offset, length);
  }

  /**
   * Input shard {@code shard}; its page is read when first needed (several threads read records at once, and wait for
   * the page they need alone: the lock covers the summary).
   */
  private InputShard input(int shard) throws IOException {
    StoredInputs read;
    inputsLock.lock(); // not a monitor: on Java 21 a virtual thread waiting in or for one keeps its carrier
    try {
      if (inputs == null) {
        inputs = inputList.read();
      }
      read = inputs;
    } finally {
      inputsLock.unlock();
    }
    return read.get(shard);
  }

  /** Bytes {@link #open} has read from local copies of segments. */
  long localCopyBytesRead() {
    return localCopyBytesRead.sum();
  }

  /** Bytes {@link #open} has read from what earlier reads kept. */
  long keptBytesRead() {
    return keptBytesRead.sum();
  }

  /** Times a local copy's file was opened for reading. */
  long localCopyFilesOpened() {
    return localCopyFilesOpened.sum();
  }

  /**
   * Closes the inputs kept open, the local copies' files and the kept reads' file; the first failure is thrown, with
   * the others suppressed in it.
   */
  @Override
  public void close() throws IOException {
    List<IORunnable> closes = new ArrayList<>();
    if (kept != null) {
      closes.add(kept::close);
    }
    closes.add(inputReads::close);
    fetched.values().forEach(copy -> closes.add(copy.channel()::close));
    IOException failed = null;
    for (IORunnable close : closes) {
      try {
        close.run();
      } catch (IOException e) {
        if (failed == null) {
          failed = e;
        } else {
          failed.addSuppressed(e);
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  /**
   * Which source {@code open} reads bytes [offset, offset + length) from, for grouping neighbouring reads: a fetched
   * segment's local copy, a kept read (each its own source, so that reads merged across gaps stay within it), or
   * the store's object ({@link #storeSource}). Refuses bytes outside their pack's records, as {@code open} does.
   */
  Source sourceOf(int shard, boolean packed, long offset, long length) throws IOException {
    int worker = packed && !partitionPacks.isEmpty() ? workerOf(shard, offset, length) : -1;
    Source object = storeSource(shard, packed, worker);
    Fetched local = worker >= 0 ? fetched.get(worker) : null;
    if (local != null && local.holds(offset)) {
      return new Source(object.object(), false, local);
    }
    KeptBytes.Kept keptRead = kept == null ? null : kept.holding(object.object(), offset, length);
    return keptRead == null ? object : new Source(object.object(), false, keptRead);
  }

  /**
   * The store object bytes of input shard {@code shard} are read from: an extract worker's pack (its segments not
   * fetched, where a shard's continuation into the next partitions is read), the shard's own pack, or the input.
   * Packs are in scratch, whose store says whether a read streams its gaps (a pack of a local run is never read
   * here: its records are in the process). {@code worker}: the extract worker whose pack holds the bytes ({@link
   * #workerOf}), when records spread over partitions; -1 otherwise.
   */
  private Source storeSource(int shard, boolean packed, int worker) throws IOException {
    if (worker >= 0) {
      return objects.computeIfAbsent(-1L - worker,
          k -> new Source("pack of extract worker " + worker, !scratchStore.isLocal(), null));
    }
    Source known = objects.get(2L * shard + (packed ? 1 : 0));
    if (known != null) {
      return known;
    }
    boolean streamsGaps = packed ? scratchStore == null || !scratchStore.isLocal()
        : !stores.locate(input(shard).url()).store().isLocal();
    return objects.computeIfAbsent(2L * shard + (packed ? 1 : 0),
        k -> new Source((packed ? "pack of input " : "input ") + shard, streamsGaps, null));
  }

  /**
   * The extract worker whose pack holds the packed bytes [offset, offset + length) of input shard {@code shard}:
   * refused unless they lie within its records, since an ordered list in scratch could point anywhere, even at the
   * pack's segment table.
   */
  private int workerOf(int shard, long offset, long length) {
    int worker = PlanSummary.ExtractPack.indexOf(partitionPacks, shard);
    PlanSummary.ExtractPack pack = partitionPacks.get(worker);
    if (pack.pack() == null || offset < 0 || length < 0 || offset > pack.recordBytes() - length) {
      throw new IllegalStateException("Cannot read a record of input shard " + shard + ": its bytes " + offset
          + " to " + (offset + length) + " are not within the " + pack.recordBytes() + " bytes of records in the"
          + " pack of extract worker " + worker + " (the scratch was changed; clean it and sort again)");
    }
    return worker;
  }
}
