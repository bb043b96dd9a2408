package dev.quarry.core.gen;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;

/** Makes the records of a synthetic dataset; each record's bytes depend only on the spec and its position. */
public final class RecordFactory {
  private final DatasetSpec spec;

  public RecordFactory(DatasetSpec spec) {
    this.spec = spec;
  }

  public Record record(int shard, int position) {
    String key = spec.recordKey(shard, position);
    // One generator per record, seeded from the record's global number, so shards can be made in any order.
    long number = (long) shard * spec.recordsPerShard() + position;
    SplittableRandom random = new SplittableRandom(spec.seed() * 0x9E3779B97F4A7C15L + number);
    byte[] image = new byte[imageSize(random)];
    random.nextBytes(image);
    byte[] label = Integer.toString(random.nextInt(spec.classes())).getBytes(StandardCharsets.US_ASCII);
    return new Record(key, List.of(new Member(key + ".cls", label), new Member(key + ".jpg", image)));
  }

  private int imageSize(SplittableRandom random) {
    int spread = (int) ((long) spec.imageBytes() * spec.sizeJitterPercent() / 100);
    return spread == 0 ? spec.imageBytes() : spec.imageBytes() - spread + random.nextInt(2 * spread + 1);
  }
}
