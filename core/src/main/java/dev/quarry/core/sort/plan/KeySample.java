package dev.quarry.core.sort.plan;

import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.RecordKeys;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.tar.TarReader;
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
 * Splitters for partitions by key range (or, for a content order, by range of content key then key): the keys found in the first {@value #BYTES} bytes of up to {@value #SHARDS}
 * plain tar input shards spread evenly over the input list, cut into equal parts. Every extract worker reads the
 * same sample and so finds the same splitters (their done markers say which, and the plan refuses a mix). They only
 * decide how even the partitions are, never the output: any splitters give the same shards. Since every worker reads
 * it, the sample is small: at most 1 MiB per worker, the first keys of records up to about 8 KiB and the first key
 * of any larger record.
 */
public final class KeySample {
  static final int SHARDS = 64;
  static final int BYTES = 16 << 10;

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
    for (RecordEntry record : sample(inputs, stores, null)) {
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
    for (RecordEntry record : sample(inputs, stores, order.content())) {
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
   * The records whose first member's header lies in the first {@value #BYTES} bytes of the sampled shards, as entries
   * of a key and, with {@code content}, the content key when its member's data lies there too (null otherwise, or
   * when it does not parse).
   */
  private static List<RecordEntry> sample(List<InputShard> inputs, ObjectStores stores, SortSpec.ContentKey content)
      throws IOException {
    List<RecordEntry> records = new ArrayList<>();
    int count = Math.min(SHARDS, inputs.size());
    for (int i = 0; i < count; i++) {
      InputShard shard = inputs.get((int) ((long) inputs.size() * i / count));
      if (shard.format() == ShardFormat.TAR) {
        records.addAll(firstRecords(shard, stores, content));
      }
    }
    return records;
  }

  /** The records of the members whose headers lie in the shard's first {@value #BYTES} bytes; none for a missing shard. */
  private static List<RecordEntry> firstRecords(InputShard shard, ObjectStores stores, SortSpec.ContentKey content)
      throws IOException {
    Location location = stores.locate(shard.url());
    Optional<ObjectInfo> info = location.store().head(location.key());
    if (info.isEmpty() || info.get().size() == 0) {
      return List.of(); // a missing shard is extract's to report, by its policy
    }
    byte[] head;
    try (InputStream in = location.store().getRange(location.key(), 0, Math.min(BYTES, info.get().size()))) {
      head = in.readNBytes(BYTES);
    }
    Map<String, RecordEntry> records = new LinkedHashMap<>();
    try (TarReader reader = new TarReader(new ByteArrayInputStream(head), shard.url(), ArchiveLimits.DEFAULT)) {
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
      // The sample ends inside a member (or the shard is not what its name says): the records so far are the sample.
    }
    return List.copyOf(records.values());
  }
}
