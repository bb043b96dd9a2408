package dev.quarry.core.sort.create;

import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.sort.StoredJson;
import dev.quarry.core.sort.Progress;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.fs.WorkFolder;
import dev.quarry.core.sort.extract.PackStore;
import dev.quarry.core.sort.input.StoredInputs;
import dev.quarry.core.sort.plan.PackSegments;
import dev.quarry.core.sort.plan.PlanShards;
import dev.quarry.core.sort.plan.PlanSummary;
import dev.quarry.core.sort.plan.PlannedShard;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.records.RunReader;
import dev.quarry.core.sort.records.RunWriter;
import dev.quarry.core.sort.records.StoreRunStorage;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.ObjectUpload;
import dev.quarry.core.store.DirectWriteBuffers;
import dev.quarry.core.store.HashedContent;
import dev.quarry.core.store.RangedContent;
import dev.quarry.core.sync.cas.Digest;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.io.output.CountingOutputStream;

/**
 * Phase 3: create worker {@code index} of {@code count} builds its share of the planned output shards: with as many
 * workers as partitions, and records spread over them, the shards whose first record is in partition {@code index};
 * otherwise a contiguous share of the shards. With one worker per partition, each reads its own partition's
 * segments alone, and a shard that goes on into the next partitions is joined from pieces ({@link #writePiece}).
 * Each shard streams into a multipart upload that becomes visible only when complete, then gets a done marker with
 * its size and SHA-256; a rerun skips shards whose marker and object agree, and rewrites the rest, identically.
 */
public final class CreatePhase {
  /** Output shards one worker uploads at once. */
  private static final int SHARDS_IN_FLIGHT = 4;
  /** The most bytes of a record a conversion holds whole ({@link #recordBytesHeld}). */
  private static final long RECORD_BYTES_HELD_MOST = 64L << 20;
  /**
   * The aligned buffer each shard in flight of a local run is written through, past the page cache, into a local
   * output ({@link DirectWriteBuffers}): 1 MiB writes with O_DIRECT ran at 534 MB/s, as fast as the disk.
   */
  private static final int WRITE_BUFFER_BYTES = 1 << 20;
  /** The direct memory a local run's create holds in write buffers, counted by {@code MemoryBudget}. */
  public static final long WRITE_BUFFERS_BYTES =
      (long) SHARDS_IN_FLIGHT * (WRITE_BUFFER_BYTES + DirectWriteBuffers.ALIGNMENT);

  /**
   * The write buffers of a local run's create, to allocate before its extract: then the packs' chunks, which take
   * the direct memory left up to their budget, cannot leave create without room for them (as happened in 1 run of 9
   * of 300 MiB of tar.lz4 under a 128Mi budget).
   */
  public static DirectWriteBuffers localWriteBuffers() {
    return new DirectWriteBuffers(SHARDS_IN_FLIGHT, WRITE_BUFFER_BYTES);
  }
  /**
   * The most output shards gathered together: their pieces share large reads, and the bound keeps open files and
   * local disk to a batch, however many shards a worker has. Fewer when their entries would pass the budget's entry
   * bytes ({@link #shardsPerBatch}), so that a batch's entries are held in the heap; those of a shard that alone
   * passes them wait on the worker's disk ({@link ShardEntries}), and its pieces are gathered a chunk at a time
   * ({@link ShardAssembly}).
   */
  private static final int SHARDS_PER_BATCH = 64;
  /**
   * A record entry's heap bytes as the first batch is sized ({@code RecordEntry#estimatedHeapBytes} of a key of 50
   * characters and two ranges): the plan knows records per shard, not their keys. Later batches are sized by the
   * entries seen ({@link ShardEntries.Spool#bytesPerEntry}).
   */
  static final long ENTRY_HEAP_BYTES = 316;
  /**
   * The share of the entries' bytes the pieces of a chunk being gathered may take, besides the entries held
   * ({@link ShardAssembly}): a quarter.
   */
  private static final long PIECES_SHARE = 4;

  private final SortSpec spec;
  private final ObjectStores stores;
  private final ObjectStore scratchStore;
  private final Scratch scratch;
  private final PackStore packs;
  private final boolean recordsInProcess;
  private final DirectWriteBuffers writeBuffers;
  private final PrintStream log;
  /** Shards whose entries waited on this worker's disk during {@link #run}: for tests and details. */
  private long shardsWithEntriesOnDisk;

  /**
   * {@code recordsInProcess}: every record's bytes are in {@code packs} in this process (a local run), so shards are
   * written straight from them in order instead of being gathered from object storage into local files first.
   * {@code writeBuffers}: {@link #localWriteBuffers} for a local run, through which a local output is written past
   * the page cache; null for none.
   */
  public CreatePhase(SortSpec spec, ObjectStores stores, Location scratchRoot, PackStore packs,
      boolean recordsInProcess, DirectWriteBuffers writeBuffers, PrintStream log) {
    this.recordsInProcess = recordsInProcess;
    this.writeBuffers = writeBuffers;
    this.spec = spec;
    this.stores = stores;
    this.scratchStore = scratchRoot.store();
    this.scratch = new Scratch(scratchRoot.key());
    this.packs = packs;
    this.log = log;
  }

  public List<CreatedShard> run(int index, int count) throws IOException, InterruptedException {
    PlanSummary plan = readPlan(scratchStore, scratch);
    PlanShards shards = new PlanShards(scratchStore, scratch, plan);
    List<PlannedShard> mine = share(plan, shards, index, count);
    ShardFormat format = ShardFormat.ofExtension(plan.outputFormat());
    Progress progress = new Progress("create " + index + "/" + count, mine.size(), log);
    Map<Long, CreatedShard> created = new TreeMap<>();
    List<PlannedShard> todo = new ArrayList<>();
    // Looked up at once (a HEAD each, one after another, was 400 requests in a row for a worker of 400 shards).
    Map<PlannedShard, Optional<CreatedShard>> before = new java.util.concurrent.ConcurrentHashMap<>();
    InFlight.all(mine, InFlight.SORT_REQUESTS, shard -> before.put(shard, alreadyCreated(shard)));
    for (PlannedShard shard : mine) {
      Optional<CreatedShard> done = before.get(shard);
      if (done.isPresent()) {
        created.put(shard.index(), done.get());
        progress.shardDone(done.get().records(), done.get().size());
      } else {
        todo.add(shard);
      }
    }
    PackSegments segments = new PackSegments(plan.packs(), PackSegments.written(scratchStore, scratch));
    // Each worker reads its own partition's segments alone: a shard that goes on into the next partitions is built
    // from pieces, one per partition it is in, each written by that partition's worker from its local copy.
    boolean inPieces = !recordsInProcess && segments.spread() && ownsPartition(plan, count);
    long entryBytes = spec.workers().memory().entryBytes();
    try (WorkFolder work = WorkFolder.create(Path.of(System.getProperty("java.io.tmpdir")), "quarry-create-");
        RecordSource source = new RecordSource(
            () -> StoredInputs.read(scratchStore, scratch, "create shards", spec.input()), stores, packs,
            scratchStore, segments);
        OrderedEntries ordered = new OrderedEntries(plan, spec, scratchStore, scratch, segments, inPieces,
            StoreRunStorage.ownRuns(scratchStore, work.path()),
            new ShardEntries.Spool(work.path().resolve("entries"), entryBytes))) {
      ShardAssembly assembly = new ShardAssembly(source, spec.workers().requestsInFlight(),
          entryBytes / PIECES_SHARE);
      Map<Long, ShardEntries> leadingEntries = inPieces
          ? ordered.leading(index, mine.isEmpty() ? Long.MAX_VALUE : mine.getFirst().index()) : Map.of();
      try (Closeable closing = () -> ShardEntries.closeAll(leadingEntries.values())) {
        List<PlannedShard> leading = new ArrayList<>();
        for (long shardIndex : leadingEntries.keySet()) {
          PlannedShard shard = shards.between(shardIndex, shardIndex + 1).getFirst();
          if (alreadyCreated(shard).isEmpty()) {
            leading.add(shard);
          }
        }
        if (segments.spread() && ownsPartition(plan, count) && (!todo.isEmpty() || !leading.isEmpty())) {
          source.fetch(index, Files.createDirectories(work.path().resolve("segments")));
        }
        if (!recordsInProcess) {
          // Later batches, and later chunks of one batch's pieces, read what earlier ones streamed past from here;
          // made after the fetch, so that the room it may take leaves the fetched segments theirs.
          source.keepStreamedBytes(new KeptBytes(work.path().resolve("kept")));
        }
        for (PlannedShard shard : leading) {
          CreatedShard joined = writePiece(shard, index, leadingEntries.get(shard.index()), ordered, format,
              assembly, work.path());
          if (joined != null) {
            created.put(joined.index(), joined);
          }
        }
      }
      for (int start = 0, end; start < todo.size(); start = end) {
        end = Math.min(todo.size(), start + shardsPerBatch(plan.records(), plan.shardCount(), entryBytes,
            ordered.spool().bytesPerEntry(ENTRY_HEAP_BYTES)));
        List<PlannedShard> batch = todo.subList(start, end);
        boolean batchesFollow = end < todo.size();
        Map<Long, ShardEntries> entries = ordered.of(batch);
        try (Closeable closing = () -> ShardEntries.closeAll(entries.values())) {
          List<PlannedShard> goingOn = inPieces
              ? batch.stream().filter(shard -> ordered.partitionsOf(shard).size() > 1).toList() : List.of();
          List<PlannedShard> whole = batch.stream().filter(shard -> !goingOn.contains(shard)).toList();
          for (CreatedShard done : createBatch(whole, entries, format, source, assembly, work.path(),
              batchesFollow, progress)) {
            created.put(done.index(), done);
          }
          for (PlannedShard shard : goingOn) {
            CreatedShard joined = writePiece(shard, index, entries.get(shard.index()), ordered, format, assembly,
                work.path());
            if (joined != null) {
              created.put(joined.index(), joined);
            }
            progress.shardDone(entries.get(shard.index()).count(), 0);
          }
        }
      }
      shardsWithEntriesOnDisk = ordered.spool().runs();
    }
    progress.print(true);
    return List.copyOf(created.values());
  }

  /**
   * Builds the piece of {@code shard} in partition {@code partition} (its records there, raw) and joins the shard if
   * every other partition it is in has written its piece (raw bytes, then their entries, which mark it whole): the
   * last to come joins it from its own piece, never stored, and the others' (found by one listing before it writes
   * and one after). Otherwise it stores its piece and its entries, and joins the shard if the others have meanwhile
   * stored theirs. So the worker whose piece is stored last always finds every other piece, the shard is built once
   * all are (twice at worst, by two that store theirs at once, into the same bytes), and only the pieces of those
   * that came earlier cross the store twice. Returns the shard if this worker joined it.
   */
  private CreatedShard writePiece(PlannedShard shard, int partition, ShardEntries entries,
      OrderedEntries ordered, ShardFormat format, ShardAssembly assembly, Path work)
      throws IOException, InterruptedException {
    Path own = work.resolve(shard.index() + "-" + partition + ".piece");
    assembly.assemble(List.of(shard), Map.of(shard.index(), entries), List.of(own), false);
    try {
      List<Integer> partitions = ordered.partitionsOf(shard);
      if (!othersStored(shard, partition, partitions)) {
        scratchStore.put(scratch.createPiece(shard.index(), partition), RangedContent.of(own));
        try (RunWriter run = new RunWriter(new StoreRunStorage(scratchStore)
                .create(scratch.createPieceEntries(shard.index(), partition)));
            ShardEntries.Cursor cursor = entries.cursor()) {
          for (RecordEntry entry = cursor.next(); entry != null; entry = cursor.next()) {
            run.write(entry);
          }
          run.finish();
        }
        if (!othersStored(shard, partition, partitions)) {
          return null;
        }
      }
      return join(shard, partition, own, entries, partitions, format, ordered, work);
    } finally {
      Files.deleteIfExists(own);
    }
  }

  /** Whether every partition of {@code partitions} but {@code partition} has stored its piece of the shard whole. */
  private boolean othersStored(PlannedShard shard, int partition, List<Integer> partitions) throws IOException {
    java.util.Set<String> stored = new java.util.HashSet<>();
    scratchStore.listAll(scratch.createPieces(shard.index())).forEach(object -> stored.add(object.key()));
    return partitions.stream().allMatch(holder -> holder == partition
        || stored.contains(scratch.createPieceEntries(shard.index(), holder)));
  }

  /** Joins the shard from this worker's piece, local, and the other partitions' stored ones, in partition order. */
  private CreatedShard join(PlannedShard shard, int partition, Path own, ShardEntries ownEntries,
      List<Integer> partitions, ShardFormat format, OrderedEntries ordered, Path work) throws IOException {
    StoreRunStorage storage = new StoreRunStorage(scratchStore);
    List<Path> pieces = new ArrayList<>();
    List<Path> fetched = new ArrayList<>();
    long expected = 0;
    try (ShardEntries all = ordered.spool().entries()) {
      for (int holder : partitions) {
        String entriesName = scratch.createPieceEntries(shard.index(), holder);
        try (ShardEntries.Cursor reader = holder == partition ? ownEntries.cursor()
            : ordered.spool().cursor(storage, entriesName, ShardEntries.Spool.READER_BYTES)) {
          for (RecordEntry entry = reader.next(); entry != null; entry = reader.next()) {
            all.add(entry);
            expected += entry.size();
          }
        }
        if (holder == partition) {
          pieces.add(own);
          continue;
        }
        Path piece = work.resolve(shard.index() + "-" + holder + ".joined");
        fetched.add(piece);
        try (InputStream in = scratchStore.get(scratch.createPiece(shard.index(), holder))) {
          Files.copy(in, piece, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        pieces.add(piece);
      }
      all.finish();
      long bytes = 0;
      for (Path piece : pieces) {
        bytes += Files.size(piece);
      }
      if (bytes != expected) {
        throw new IllegalStateException("Cannot create shard " + shard.url() + ": its pieces hold " + bytes
            + " bytes, not the " + expected + " of their records (the scratch was changed; clean it and sort"
            + " again)");
      }
      List<RangedContent> raw = new ArrayList<>();
      for (Path piece : pieces) {
        raw.add(RangedContent.of(piece));
      }
      return upload(shard, format, all, null, RangedContent.concat(raw), work);
    } finally {
      for (Path piece : fetched) {
        Files.deleteIfExists(piece);
      }
    }
  }

  /**
   * Shards a batch gathers: at most {@value #SHARDS_PER_BATCH}, and no more than the budget's entry bytes hold the
   * entries of, at the plan's records per shard (at least one). 64 shards of 256 MiB of 1 KiB records are 16.7 M
   * entries, about 5 GB of heap, where the default budget holds a tenth of that.
   */
  static int shardsPerBatch(long records, long shards, long entryBytes, long bytesPerEntry) {
    long perShard = Math.max(1, Math.ceilDiv(records, Math.max(1, shards)));
    return (int) Math.max(1, Math.min(SHARDS_PER_BATCH, entryBytes / Math.multiplyExact(perShard, bytesPerEntry)));
  }

  /** The shards worker {@code index} of {@code count} builds, in plan order: only their pages are read. */
  private static List<PlannedShard> share(PlanSummary plan, PlanShards shards, int index, int count)
      throws IOException {
    if (ownsPartition(plan, count)) {
      return shards.ofPartition(index);
    }
    return shards.between(plan.shardCount() * index / count, plan.shardCount() * (index + 1) / count);
  }

  /** Whether each of {@code count} create workers builds the shards that start in its own partition. */
  private static boolean ownsPartition(PlanSummary plan, int count) {
    return plan.partitioned() && count == plan.partitions().size();
  }

  /**
   * Gathers one batch of shards (unless their records are in this process) and uploads them, a few at a time, each
   * through one of the write buffers when there are some.
   */
  private List<CreatedShard> createBatch(List<PlannedShard> batch, Map<Long, ShardEntries> entries,
      ShardFormat format, RecordSource source, ShardAssembly assembly, Path work, boolean batchesFollow,
      Progress progress) throws IOException, InterruptedException {
    List<Path> files = batch.stream().map(shard -> work.resolve(shard.index() + ".raw")).toList();
    if (!recordsInProcess) {
      assembly.assemble(batch, entries, files, batchesFollow);
    }
    // Several uploads at once keep the store busy while each waits on its parts.
    return InFlight.inOrder(InFlight.indexes(batch.size()), SHARDS_IN_FLIGHT, i -> {
      PlannedShard shard = batch.get(i);
      Path file = files.get(i);
      // As many buffers as uploads in flight: each finds one free.
      ByteBuffer buffer = writeBuffers == null ? null : writeBuffers.take();
      try {
        ShardEntries shardEntries = entries.get(shard.index());
        CreatedShard done = upload(shard, format, shardEntries, buffer, recordsInProcess
            ? recordsInOrder(shard, format, source, shardEntries, file) : RangedContent.of(file), work);
        Files.deleteIfExists(file);
        progress.shardDone(done.records(), done.size());
        return done;
      } finally {
        if (buffer != null) {
          writeBuffers.release(buffer);
        }
      }
    });
  }

  /**
   * How many times the entries of a shard (or of a piece of one, or of one being joined) waited on this worker's disk
   * during {@link #run}, past the heap's share for them.
   */
  public long shardsWithEntriesOnDisk() {
    return shardsWithEntriesOnDisk;
  }

  /**
   * The raw bytes of a shard whose records are in this process, read in order from where they are; first written to
   * {@code file} when its entries wait on disk and it is a tar shard for a store that is not local: that upload reads
   * its bytes once to hash them and then part by part, and each read from an offset would read the entries again
   * from the first (a shard of millions of records, once per part).
   */
  private RangedContent recordsInOrder(PlannedShard shard, ShardFormat format, RecordSource source,
      ShardEntries entries, Path file) throws IOException {
    RangedContent inOrder = OrderedRecordBytes.of(source, entries);
    if (!entries.onDisk() || format != ShardFormat.TAR || outputOf(shard).store().isLocal()) {
      return inOrder;
    }
    try (InputStream in = inOrder.open(0, inOrder.length())) {
      Files.copy(in, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    return RangedContent.of(file);
  }

  /** Where output shard {@code shard} goes: its name passes the output rule again, read back from scratch. */
  private Location outputOf(PlannedShard shard) {
    return stores.locate(spec.outputLocation().confine(shard.url()));
  }

  /**
   * The largest record a conversion to another format than tar holds whole; a larger one waits in the work folder
   * while it is written. Each of the shards in flight converts one record at a time, holding it about three times
   * over (its raw bytes, its members, a member deflated), so together they keep within a quarter of the entries'
   * share (5.3 MiB a record under the default 1Gi of a local run, 170 KiB under the least budget, 16Mi), and to
   * {@value #RECORD_BYTES_HELD_MOST} bytes: far below the 1 GiB a member read whole may have, so that whether a
   * record converts never depends on the budget.
   */
  private long recordBytesHeld() {
    return Math.min(RECORD_BYTES_HELD_MOST, spec.workers().memory().entryBytes() / 4 / 3 / SHARDS_IN_FLIGHT);
  }

  /** The plan, or a clear error when the plan phase has not finished. */
  public static PlanSummary readPlan(ObjectStore scratchStore, Scratch scratch) throws IOException {
    return StoredJson.readIfPresent(scratchStore, scratch.planDone(), PlanSummary.class).orElseThrow(() ->
        new IllegalStateException("Cannot create shards: the plan phase has not finished (run quarry sort plan"
            + " first)"));
  }

  private Optional<CreatedShard> alreadyCreated(PlannedShard shard) throws IOException {
    String marker = scratch.created(shard.index());
    CreatedShard done = StoredJson.readIfPresent(scratchStore, marker, CreatedShard.class).orElse(null);
    if (done == null) {
      return Optional.empty();
    }
    Location output = outputOf(shard);
    Optional<ObjectInfo> object = output.store().head(output.key());
    return object.isPresent() && object.get().size() == done.size() ? Optional.of(done) : Optional.empty();
  }

  /**
   * Writes one shard from its records' raw bytes, {@code raw}. To a store that is not local, a shard is made whole
   * first, hashed (which also signs its upload), and sent from where its bytes are, so that no upload holds a part in
   * the heap: a tar shard is {@code raw} and the end-of-archive blocks, read twice (to hash, then to send), and a shard
   * of another format is written to a file in {@code work} as it is converted. A local store writes it in one pass,
   * through {@code writeBuffer} when there is one ({@link ObjectStore#upload(String, ByteBuffer)}).
   */
  private CreatedShard upload(PlannedShard shard, ShardFormat format, ShardEntries entries,
      ByteBuffer writeBuffer, RangedContent raw, Path work) throws IOException {
    Location output = outputOf(shard);
    long size;
    byte[] sha256;
    if (!output.store().isLocal()) {
      Path converted = format == ShardFormat.TAR ? null : work.resolve(shard.index() + ".shard");
      try {
        HashedContent content = converted == null ? ShardBuilder.tar(raw, entries)
            : ShardBuilder.converted(format, entries, raw, converted, recordBytesHeld());
        output.store().put(output.key(), content);
        size = content.length();
        sha256 = content.sha256();
      } finally {
        if (converted != null) {
          Files.deleteIfExists(converted);
        }
      }
    } else {
      // One pass that hashes as it writes: a local file needs no hash before its first byte, as a signed PUT does.
      MessageDigest digest = Digest.sha256();
      try (ObjectUpload upload = output.store().upload(output.key(), writeBuffer);
          InputStream in = raw.open(0, raw.length())) {
        CountingOutputStream out = new CountingOutputStream(new DigestOutputStream(upload.stream(), digest));
        if (format == ShardFormat.TAR) {
          ShardBuilder.copyTar(in, entries, out);
        } else {
          ShardBuilder.convert(format, entries, in, out, work, recordBytesHeld());
        }
        out.flush();
        size = out.getByteCount();
        upload.commit();
      }
      sha256 = digest.digest();
    }
    CreatedShard done = new CreatedShard(shard.index(), shard.url(), size, entries.count(),
        HexFormat.of().formatHex(sha256));
    StoredJson.write(scratchStore, scratch.created(shard.index()), done);
    return done;
  }
}
