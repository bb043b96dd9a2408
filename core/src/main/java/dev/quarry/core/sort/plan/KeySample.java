package dev.quarry.core.sort.plan;

import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.RecordKeys;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.tar.TarReader;
import dev.quarry.core.sort.input.InputShard;
import dev.quarry.core.sort.order.KeyOrder;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStores;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * Splitters for partitions by key range: the keys found in the first {@value #BYTES} bytes of up to {@value #SHARDS}
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
    int count = Math.min(SHARDS, inputs.size());
    for (int i = 0; i < count; i++) {
      InputShard shard = inputs.get((int) ((long) inputs.size() * i / count));
      if (shard.format() == ShardFormat.TAR) {
        for (String key : firstKeys(shard, stores)) {
          String ranged = rangeKey.apply(key);
          if (ranged != null) {
            keys.add(ranged);
          }
        }
      }
    }
    List<String> sorted = new ArrayList<>(keys);
    List<String> splitters = new ArrayList<>();
    for (int part = 1; part < partitions && !sorted.isEmpty(); part++) {
      String splitter = sorted.get((int) ((long) sorted.size() * part / partitions));
      if (splitters.isEmpty() || !splitters.getLast().equals(splitter)) {
        splitters.add(splitter);
      }
    }
    return splitters;
  }

  /** The keys of the members whose headers lie in the shard's first {@value #BYTES} bytes; none for a missing shard. */
  private static List<String> firstKeys(InputShard shard, ObjectStores stores) throws IOException {
    Location location = stores.locate(shard.url());
    Optional<ObjectInfo> info = location.store().head(location.key());
    if (info.isEmpty() || info.get().size() == 0) {
      return List.of(); // a missing shard is extract's to report, by its policy
    }
    byte[] head;
    try (InputStream in = location.store().getRange(location.key(), 0, Math.min(BYTES, info.get().size()))) {
      head = in.readNBytes(BYTES);
    }
    List<String> keys = new ArrayList<>();
    try (TarReader reader = new TarReader(new ByteArrayInputStream(head), shard.url(), ArchiveLimits.DEFAULT)) {
      for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
        keys.add(RecordKeys.of(member.name()));
      }
    } catch (IOException e) {
      // The sample ends inside a member (or the shard is not what its name says): the keys so far are the sample.
    }
    return keys;
  }
}
