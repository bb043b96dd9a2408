package dev.quarry.core.sort;

import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.RecordKeys;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.ShardReader;
import dev.quarry.core.archive.ShardReaders;
import dev.quarry.core.archive.ShardWriter;
import dev.quarry.core.archive.ShardWriters;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.ObjectUpload;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Input datasets with known records, written to any store, and output shards read back as record lists. */
public final class SortFixture {
  private SortFixture() {}

  /** {@code shards} shards of {@code perShard} records with a .jpg and a .cls (an int label) each. */
  public static List<List<Record>> dataset(int shards, int perShard, long seed) {
    Random random = new Random(seed);
    java.util.Set<String> used = new java.util.HashSet<>();
    List<List<Record>> dataset = new ArrayList<>();
    for (int s = 0; s < shards; s++) {
      List<Record> records = new ArrayList<>();
      for (int r = 0; r < perShard; r++) {
        String key;
        do {
          key = String.format("img/%c%05d", (char) ('a' + random.nextInt(26)), random.nextInt(100_000));
        } while (!used.add(key));
        byte[] image = new byte[200 + random.nextInt(3000)];
        random.nextBytes(image);
        records.add(new Record(key, List.of(
            new Member(key + ".cls", Integer.toString(random.nextInt(1000)).getBytes(StandardCharsets.US_ASCII)),
            new Member(key + ".jpg", image))));
      }
      dataset.add(records);
    }
    return dataset;
  }

  /** Writes each shard to {@code urlPrefix + "in-" + index + "." + ext}; returns the URLs. */
  public static List<String> write(ObjectStores stores, String urlPrefix, ShardFormat format,
      List<List<Record>> dataset) throws IOException {
    List<String> urls = new ArrayList<>();
    for (int i = 0; i < dataset.size(); i++) {
      String url = String.format("%sin-%03d.%s", urlPrefix, i, format.extension());
      Location location = stores.locate(url);
      try (ObjectUpload upload = location.store().upload(location.key())) {
        try (ShardWriter writer = ShardWriters.open(format,
            org.apache.commons.io.output.CloseShieldOutputStream.wrap(upload.stream()))) {
          for (Record record : dataset.get(i)) {
            writer.write(record);
          }
        }
        upload.commit();
      }
      urls.add(url);
    }
    return urls;
  }

  /** The records of one output shard, in order. */
  public static List<Record> read(ObjectStores stores, String url, ShardFormat format) throws IOException {
    Location location = stores.locate(url);
    Map<String, List<Member>> records = new LinkedHashMap<>();
    try (InputStream in = location.store().get(location.key());
        ShardReader reader = ShardReaders.open(format, in, url, ArchiveLimits.DEFAULT)) {
      for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
        records.computeIfAbsent(RecordKeys.of(member.name()), k -> new ArrayList<>())
            .add(new Member(member.name(), member.readData()));
      }
    }
    List<Record> result = new ArrayList<>();
    records.forEach((key, members) -> result.add(new Record(key, members)));
    return result;
  }

  /** A record as comparable text: key, then each member's name and SHA-256. */
  public static String fingerprint(Record record) {
    StringBuilder text = new StringBuilder(record.key());
    for (Member member : record.members()) {
      text.append(' ').append(member.name()).append('=').append(dev.quarry.core.archive.Shards.sha256(member.data()));
    }
    return text.toString();
  }
}
