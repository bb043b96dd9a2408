package dev.quarry.core.sort.plan;

import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.RecordKeys;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.tar.TarFormat;
import dev.quarry.core.archive.tar.TarReader;
import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.sort.input.InputShard;
import dev.quarry.core.sort.order.ContentKeys;
import dev.quarry.core.sort.order.KeyOrder;
import dev.quarry.core.sort.order.RecordOrders;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStores;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * Splitters for partitions by key range (or, for a content order, by range of content key then key): the keys found
 * in windows spread through up to {@value #SHARDS} plain tar input shards, themselves spread evenly over the input
 * list, cut into equal parts. Every extract worker reads the same sample and so finds the same splitters (their done
 * markers say which, and the plan refuses a mix). They only decide how even the partitions are, never the output: any
 * splitters give the same shards. Since every worker reads it, the sample is small: {@value #BYTES_PER_PARTITION} bytes per
 * partition, at most {@value #BYTES}, in {@value #WINDOWS_PER_PARTITION} windows per partition, at most
 * {@value #WINDOWS} (so at least one per shard), besides a HEAD per shard. The windows are spread through each shard, not only at
 * its start, because shards are often written in key order: a sample of their first keys alone put the splitters at
 * the shards' starts, where one key more or less moved a whole shard into the next partition (twice N/P in one step
 * with 16 partitions over 16 shards), and with fewer shards than partitions most partitions held nothing.
 */
public final class KeySample {
  static final int SHARDS = 64;
  /** The most bytes the windows hold together, read by every extract worker. */
  static final int BYTES = 1 << 20;
  /** Bytes sampled per partition, up to {@link #BYTES}: about 80 keys of records of 1 KiB for each splitter. */
  static final int BYTES_PER_PARTITION = 128 << 10;
  /**
   * Windows per partition: with keys in shard order the splitters fall in the gaps between windows, so a partition
   * spans about this many of them and is even to about one in this many.
   */
  static final int WINDOWS_PER_PARTITION = 8;
  /** The most windows, ranged reads every extract worker makes. */
  static final int WINDOWS = 256;
  private static final int IN_FLIGHT = 16;

  /** A window of a shard: where it starts and how many bytes it holds. */
  record Window(long offset, int length) {}

  private KeySample() {}

  /**
   * At most {@code partitions - 1} increasing range keys (what {@code rangeKey} makes of a sample key; null leaves
   * the key out); none (one partition) when there is one partition or the sample
   * found no key (inputs that are not plain tars).
   */
  static List<String> splitters(List<InputShard> inputs, ObjectStores stores, int partitions,
      UnaryOperator<String> rangeKey) throws IOException {
    if (partitions < 2 || inputs.isEmpty()) {
      return List.of();
    }
    TreeSet<String> keys = new TreeSet<>(KeyOrder::compareKeys);
    for (RecordEntry record : sample(inputs, stores, null, partitions)) {
      String ranged = rangeKey.apply(record.key());
      if (ranged != null) {
        keys.add(ranged);
      }
    }
    return cut(new ArrayList<>(keys), partitions);
  }

  /**
   * At most {@code partitions - 1} records, as (content key, key) pairs, that cut the sampled records of a content
   * order into equal parts in the order's direction; records of no content key are left out (they sort last).
   */
  static List<RecordEntry> contentSplitters(List<InputShard> inputs, ObjectStores stores, int partitions,
      SortSpec.Order order) throws IOException {
    if (partitions < 2 || inputs.isEmpty()) {
      return List.of();
    }
    TreeSet<RecordEntry> records = new TreeSet<>(RecordOrders.of(order));
    for (RecordEntry record : sample(inputs, stores, order.content(), partitions)) {
      if (record.contentKey() != null) {
        records.add(record);
      }
    }
    return cut(new ArrayList<>(records), partitions);
  }

  /** The elements at every {@code 1/partitions} of {@code sorted}, each once. */
  private static <T> List<T> cut(List<T> sorted, int partitions) {
    List<T> splitters = new ArrayList<>();
    for (int part = 1; part < partitions && !sorted.isEmpty(); part++) {
      T splitter = sorted.get((int) ((long) sorted.size() * part / partitions));
      if (splitters.isEmpty() || !splitters.getLast().equals(splitter)) {
        splitters.add(splitter);
      }
    }
    return splitters;
  }

  /**
   * The records whose first member's header lies in a window of a sampled shard, as entries of a key and, with
   * {@code content}, the content key when its member's data lies in the window too (null otherwise, or when it does
   * not parse).
   */
  private static List<RecordEntry> sample(List<InputShard> inputs, ObjectStores stores, SortSpec.ContentKey content,
      int partitions) throws IOException {
    int count = Math.min(SHARDS, inputs.size());
    List<InputShard> sampled = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      InputShard shard = inputs.get((int) ((long) inputs.size() * i / count));
      if (shard.format() == ShardFormat.TAR) {
        sampled.add(shard);
      }
    }
    // Every shard's size, then every window of every shard, in flight together: one shard's windows one after
    // another were 256 requests in a row for a job of one input shard.
    long[] sizes = new long[sampled.size()];
    List<Integer> indexes = java.util.stream.IntStream.range(0, sampled.size()).boxed().toList();
    InFlight.all(indexes, IN_FLIGHT, i -> {
      Location location = stores.locate(sampled.get(i).url());
      sizes[i] = location.store().head(location.key()).map(ObjectInfo::size).orElse(0L);
    });
    record Read(int shard, Window window) {}
    List<Read> reads = new ArrayList<>();
    for (int i = 0; i < sampled.size(); i++) {
      if (sizes[i] > 0) { // a missing shard is extract's to report, by its policy
        for (Window window : windows(sizes[i], count, partitions)) {
          reads.add(new Read(i, window));
        }
      }
    }
    Map<Read, byte[]> bytes = new java.util.concurrent.ConcurrentHashMap<>();
    InFlight.all(reads, IN_FLIGHT, read -> {
      Location location = stores.locate(sampled.get(read.shard()).url());
      try (InputStream in = location.store().getRange(location.key(), read.window().offset(),
          read.window().length())) {
        bytes.put(read, in.readNBytes(read.window().length()));
      }
    });
    List<RecordEntry> found = new ArrayList<>();
    Map<String, RecordEntry> records = new LinkedHashMap<>();
    for (int r = 0; r < reads.size(); r++) {
      Read read = reads.get(r);
      byte[] window = bytes.get(read);
      int start = read.window().offset() == 0 ? 0 : TarReader.firstHeaderIn(window, window.length);
      if (start >= 0) {
        read(new ByteArrayInputStream(window, start, window.length - start), sampled.get(read.shard()).url(),
            content, records);
      }
      if (r == reads.size() - 1 || reads.get(r + 1).shard() != read.shard()) {
        found.addAll(records.values());
        records.clear();
      }
    }
    return found;
  }

  /**
   * Where to read a shard of {@code size} bytes, one of {@code shards} sampled for {@code partitions}: its share of
   * the sample's bytes; one read from its start when that covers it, else windows evenly spread through it, each
   * starting at a block boundary (the first at the shard's start).
   */
  static List<Window> windows(long size, int shards, int partitions) {
    int sampled = Math.max(1, shards);
    long total = Math.min(BYTES, (long) Math.max(1, partitions) * BYTES_PER_PARTITION);
    long share = Math.max(TarFormat.BLOCK, total / sampled / TarFormat.BLOCK * TarFormat.BLOCK);
    long windows = Math.min(WINDOWS, Math.max(1, partitions) * (long) WINDOWS_PER_PARTITION);
    int count = (int) Math.max(1, Math.min(windows / sampled, share / TarFormat.BLOCK));
    int length = (int) (share / count / TarFormat.BLOCK * TarFormat.BLOCK);
    if (size <= share) {
      return List.of(new Window(0, (int) size));
    }
    List<Window> spread = new ArrayList<>();
    for (int j = 0; j < count; j++) {
      long offset = size * j / count / TarFormat.BLOCK * TarFormat.BLOCK;
      spread.add(new Window(offset, (int) Math.min(length, size - offset)));
    }
    return spread;
  }

  /** Adds the records of the members whose headers lie in {@code window} to {@code records}. */
  private static void read(InputStream window, String url, SortSpec.ContentKey content,
      Map<String, RecordEntry> records) {
    try (TarReader reader = new TarReader(window, url, ArchiveLimits.DEFAULT)) {
      for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
        String key = RecordKeys.of(member.name());
        records.putIfAbsent(key, new RecordEntry(key, 0, 0, false, List.of(), 0, null));
        if (ContentKeys.isMember(content, member.name())) {
          byte[] data = member.readData();
          try {
            records.put(key, records.get(key).withContentKey(ContentKeys.parse(content, data)));
          } catch (NumberFormatException e) {
            // Not a number: extract reports it; such a record sorts last, as one of no content key.
          }
        }
      }
    } catch (IOException e) {
      // The window ends inside a member (or the shard is not what its name says): the records so far are the sample.
    }
  }
}
