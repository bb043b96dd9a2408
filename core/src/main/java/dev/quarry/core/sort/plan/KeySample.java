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
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * Splitters for partitions by key range (or, for a content order, by range of content key then key): the keys found
 * at points spread through plain tar input shards, themselves spread evenly over the input list, cut into equal
 * parts. The sample is deterministic (the same inputs give the same splitters), and splitters only decide how even
 * the partitions are, never the output: any splitters give the same shards. It is drawn once per job and shared
 * ({@link SharedSplitters}), so it can be large where the input is: its budget is one place, here.
 *
 * <p>Two rounds. First, a HEAD of each sampled shard (at least {@value #MIN_SHARDS}, {@value #SHARDS_PER_PARTITION} a
 * partition, at most {@value #MAX_SHARDS}) and a read of its first {@value #FIRST_WINDOW} bytes, where a tar's first
 * header is: the members found there tell how many bytes a record spans. Then points spread evenly through each shard
 * (shards are often written in key order, so a partition must span many points), each one ranged read of a window
 * from a block boundary, streamed to its first block that is a ustar header whose checksum holds, then member after
 * member to the window's end (a member's header says where the next one is): each window is long enough to hold a
 * header wherever it starts (a record and a block, records of the mean size) and, where the bytes allow, its share of
 * {@value #KEYS_PER_PARTITION} keys a partition (at most {@value #MAX_KEYS}). Bounded: {@value #POINTS_PER_PARTITION}
 * points a partition, at most {@value #MAX_POINTS}; bytes of {@value #BYTES_PER_PARTITION} a partition, 1/{@value
 * #INPUT_FRACTION} of the input (estimated from the sampled shards' sizes) or the points at a record each, whichever is
 * most, at most {@value #MAX_BYTES} (fewer points when that allows no more). Requests: two per sampled shard and one
 * per point. Records larger than the windows give their shards' first keys alone.
 */
public final class KeySample {
  static final int MIN_SHARDS = 64;
  static final int SHARDS_PER_PARTITION = 2;
  static final int MAX_SHARDS = 4096;
  /** Read from every sampled shard's start: a header is there, and its members' sizes. */
  static final int FIRST_WINDOW = 16 << 10;
  /** Enough for {@value #KEYS_PER_PARTITION} keys of records up to 2 KiB. */
  static final long BYTES_PER_PARTITION = 256 << 10;
  static final int INPUT_FRACTION = 64;
  /** The most bytes the sample reads, whatever the input: 1/400,000 of 100 TiB. */
  static final long MAX_BYTES = 256L << 20;
  /**
   * Points per partition: with keys in shard order the splitters fall between points, so a partition spans about
   * this many of them and is even to about one in this many.
   */
  static final int POINTS_PER_PARTITION = 8;
  static final int MAX_POINTS = 16_384;
  /**
   * Keys wanted per partition: with keys in random order a partition's share of the sample varies by about one over
   * the square root of this, so 128 keep 64 partitions within about 1.25 x N/P.
   */
  static final int KEYS_PER_PARTITION = 128;
  static final int MAX_KEYS = 1 << 18;
  /** Spans over this many times the median are left out of the typical one ({@link #typicalSpan}). */
  static final int OUTLIER = 4;

  /** A window of a shard: where it starts and how many bytes it holds. */
  record Window(long offset, long length) {}

  /** What a window held: its records, and the bytes each record's members spanned, in order. */
  private record Found(List<RecordEntry> records, List<Long> spans) {
    static final Found NONE = new Found(List.of(), List.of());
  }

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
   * The records whose headers lie in the windows of the sampled shards, as entries of a key and, with
   * {@code content}, the content key when its member's data lies in the window too (null otherwise, or when it does
   * not parse).
   */
  private static List<RecordEntry> sample(List<InputShard> inputs, ObjectStores stores, SortSpec.ContentKey content,
      int partitions) throws IOException {
    int count = shardsSampled(inputs.size(), partitions);
    List<InputShard> tars = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      InputShard shard = inputs.get((int) ((long) inputs.size() * i / count));
      if (shard.format() == ShardFormat.TAR) {
        tars.add(shard);
      }
    }
    long[] allSizes = new long[tars.size()];
    InFlight.all(InFlight.indexes(tars.size()), InFlight.SORT_REQUESTS, i -> {
      Location location = stores.locate(tars.get(i).url());
      allSizes[i] = location.store().head(location.key()).map(ObjectInfo::size).orElse(0L);
    });
    List<InputShard> sampled = new ArrayList<>(); // a missing shard is extract's to report, by its policy
    List<Long> sizes = new ArrayList<>();
    for (int i = 0; i < tars.size(); i++) {
      if (allSizes[i] > 0) {
        sampled.add(tars.get(i));
        sizes.add(allSizes[i]);
      }
    }
    List<List<Window>> firsts = sizes.stream().map(size -> List.of(new Window(0, Math.min(size, FIRST_WINDOW))))
        .toList();
    Found[][] first = read(sampled, firsts, stores, content);
    long[] spans = Arrays.stream(first).flatMap(found -> found[0].spans().stream()).mapToLong(Long::longValue)
        .sorted().toArray();
    Found[][] spread = spans.length == 0 ? new Found[sampled.size()][0]
        : read(sampled, spread(sizes.stream().mapToLong(Long::longValue).toArray(), inputs.size(), partitions,
            typicalSpan(spans)), stores, content);
    List<RecordEntry> records = new ArrayList<>();
    for (int i = 0; i < sampled.size(); i++) {
      // A record seen in two windows of a shard is one; its content key is the one a window held whole.
      Map<String, RecordEntry> ofShard = new LinkedHashMap<>();
      for (Found found : java.util.stream.Stream.concat(Arrays.stream(first[i]), Arrays.stream(spread[i])).toList()) {
        for (RecordEntry record : found.records()) {
          if (record.contentKey() != null) {
            ofShard.put(record.key(), record);
          } else {
            ofShard.putIfAbsent(record.key(), record);
          }
        }
      }
      records.addAll(ofShard.values());
    }
    return records;
  }

  /**
   * The mean of the {@code sorted} spans the first windows found, leaving out those over {@value #OUTLIER} times the
   * median: one record claiming gigabytes (or a hostile header) in one shard moved the mean, and every window with
   * it, so far that each shard kept its first keys alone (1.94 x N/P with one record of 64 MiB among 32,000 of 1 KiB).
   */
  static long typicalSpan(long[] sorted) {
    long median = sorted[sorted.length / 2];
    long[] kept = Arrays.stream(sorted).filter(span -> span <= median * OUTLIER).toArray();
    return Math.ceilDiv(Arrays.stream(kept).sum(), kept.length);
  }

  /** How many shards, spread over an input list of {@code inputs}, the sample reads for {@code partitions}. */
  static int shardsSampled(int inputs, int partitions) {
    return (int) Math.min(inputs, Math.min(MAX_SHARDS, Math.max(MIN_SHARDS, (long) partitions * SHARDS_PER_PARTITION)));
  }

  /**
   * Reads every window of every shard, {@value InFlight#SORT_REQUESTS} at once: what each held, by shard and window.
   */
  private static Found[][] read(List<InputShard> shards, List<List<Window>> windows, ObjectStores stores,
      SortSpec.ContentKey content) throws IOException {
    Found[][] found = new Found[shards.size()][];
    record Read(int shard, int window) {}
    List<Read> reads = new ArrayList<>();
    for (int i = 0; i < shards.size(); i++) {
      found[i] = new Found[windows.get(i).size()];
      for (int j = 0; j < windows.get(i).size(); j++) {
        reads.add(new Read(i, j));
      }
    }
    InFlight.all(reads, InFlight.SORT_REQUESTS, read -> found[read.shard()][read.window()] = read(stores,
        shards.get(read.shard()).url(), windows.get(read.shard()).get(read.window()), content));
    return found;
  }

  /**
   * The windows read after each sampled shard's first ({@code sizes}: the sampled shards' sizes, of an input list of
   * {@code inputs}; {@code span}: the bytes a record spans, as the first windows found): points spread evenly through
   * each shard, each at a block boundary, none overlapping another or the first window, each at least a record and a
   * block long (so it holds a header wherever it starts, for records up to {@code span}); or the rest of the shard in
   * one window, when the shard's points would cover it. They are at most
   * {@value #POINTS_PER_PARTITION} a partition and {@value #MAX_POINTS}; their bytes and the first windows' at most
   * {@link #bytes}.
   */
  static List<List<Window>> spread(long[] sizes, int inputs, int partitions, long span) {
    long firstBytes = Arrays.stream(sizes).map(size -> Math.min(size, FIRST_WINDOW)).sum();
    long shortest = blocks(span) + TarFormat.BLOCK;
    long points = Math.min((long) partitions * POINTS_PER_PARTITION, MAX_POINTS);
    long left = Math.max(0, bytes(sizes, inputs, partitions, firstBytes + points * shortest) - firstBytes);
    points = Math.min(points, left / shortest);
    List<List<Window>> spread = new ArrayList<>();
    if (points == 0) {
      Arrays.stream(sizes).forEach(size -> spread.add(List.of()));
      return spread;
    }
    long keysPerPoint = Math.ceilDiv(Math.min((long) partitions * KEYS_PER_PARTITION, MAX_KEYS),
        points + sizes.length);
    long longest = left / points / TarFormat.BLOCK * TarFormat.BLOCK;
    long window = Math.max(shortest, Math.min(blocks(keysPerPoint * span), longest));
    for (int i = 0; i < sizes.length; i++) {
      long size = sizes[i];
      long share = points * (i + 1) / sizes.length - points * i / sizes.length;
      long rest = size - Math.min(size, FIRST_WINDOW);
      if (rest > 0 && rest <= share * window) { // the shard's points would cover the rest of it: one read
        spread.add(List.of(new Window(FIRST_WINDOW, rest)));
        continue;
      }
      long count = Math.max(0, Math.min(share, size / (Math.max(window, FIRST_WINDOW) + TarFormat.BLOCK) - 1));
      List<Window> windows = new ArrayList<>();
      for (long j = 1; j <= count; j++) {
        long offset = size * j / (count + 1) / TarFormat.BLOCK * TarFormat.BLOCK;
        windows.add(new Window(offset, Math.min(window, size - offset)));
      }
      spread.add(windows);
    }
    return spread;
  }

  /**
   * The most bytes the sample reads, for an input list of {@code inputs} shards of which some, of {@code sizes}, were
   * sampled: {@value #BYTES_PER_PARTITION} a partition, 1/{@value #INPUT_FRACTION} of the input (estimated from the
   * sampled shards) or what {@code spread} needs (its points at a record each), whichever is most, and at most
   * {@value #MAX_BYTES}.
   */
  static long bytes(long[] sizes, int inputs, int partitions, long spread) {
    double input = Arrays.stream(sizes).asDoubleStream().sum() / Math.max(1, sizes.length) * inputs;
    return (long) Math.min(MAX_BYTES, Math.max(Math.max((double) partitions * BYTES_PER_PARTITION,
        input / INPUT_FRACTION), spread));
  }

  private static long blocks(long bytes) {
    return Math.ceilDiv(bytes, TarFormat.BLOCK) * TarFormat.BLOCK;
  }

  /**
   * What {@code window} of the shard at {@code url} holds: from the shard's start, its members; from elsewhere, the
   * members from its first block that is a header. The window is read to its end, so no request is cut short.
   */
  private static Found read(ObjectStores stores, String url, Window window, SortSpec.ContentKey content)
      throws IOException {
    Location location = stores.locate(url);
    try (InputStream in = new BufferedInputStream(location.store().getRange(location.key(), window.offset(),
        window.length()), 1 << 16)) {
      InputStream kept = new FilterInputStream(in) {
        @Override
        public void close() {
          // The window is drained and closed below.
        }
      };
      Found found = Found.NONE;
      if (window.offset() == 0) {
        found = members(kept, url, content);
      } else {
        byte[] block = new byte[TarFormat.BLOCK];
        while (in.readNBytes(block, 0, block.length) == block.length) {
          if (TarReader.isHeader(block)) {
            found = members(new SequenceInputStream(new ByteArrayInputStream(block), kept), url, content);
            break;
          }
        }
      }
      in.transferTo(OutputStream.nullOutputStream());
      return found;
    }
  }

  /** The records of the members whose headers lie in {@code window}, which starts with a header. */
  private static Found members(InputStream window, String url, SortSpec.ContentKey content) {
    Map<String, RecordEntry> records = new LinkedHashMap<>();
    List<Long> spans = new ArrayList<>();
    String last = null;
    try (TarReader reader = new TarReader(window, url, ArchiveLimits.DEFAULT)) {
      for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
        String key = RecordKeys.of(member.name());
        if (!key.equals(last)) {
          spans.add(0L);
          last = key;
        }
        spans.set(spans.size() - 1, spans.getLast() + member.raw().length());
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
    return new Found(List.copyOf(records.values()), List.copyOf(spans));
  }
}
