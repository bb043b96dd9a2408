package dev.quarry.core.archive.msgpack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Randomly corrupted msgpack shards never hang and never crash: each read ends normally or in an ArchiveException. */
class MsgpackFuzzTest {
  private static final int ITERATIONS = 300;

  @Test
  void corruptShardsEndInAClearError() throws Exception {
    Random content = new Random(3);
    List<Record> records = new ArrayList<>();
    for (String key : List.of("a", "b/" + "long".repeat(40), "c", "données/d")) {
      byte[] bin = new byte[3000];
      content.nextBytes(bin);
      records.add(new Record(key, List.of(new Member(key + ".cls", ("class " + key).getBytes()),
          new Member(key + ".bin", bin), new Member(key + ".seg.png", new byte[40]))));
    }
    byte[] good = MsgpackShards.write(records);
    Random random = new Random(17);
    int failed = 0;
    for (int i = 0; i < ITERATIONS; i++) {
      byte[] bad = mutate(good, random);
      Throwable outcome = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
        try {
          MsgpackShards.read(bad);
          return null;
        } catch (Throwable t) {
          return t;
        }
      }, "iteration " + i);
      if (outcome != null) {
        assertThat(outcome).as("iteration %d", i).isInstanceOf(ArchiveException.class);
        assertThat(outcome.getMessage()).startsWith("Cannot read ");
        failed++;
      }
    }
    // Flipped data bytes go unnoticed (msgpack has no checksum); truncation and broken structure do not.
    assertThat(failed).as("corruptions detected out of " + ITERATIONS).isGreaterThan(ITERATIONS / 4);
  }

  private static byte[] mutate(byte[] good, Random random) {
    byte[] bad = good.clone();
    switch (random.nextInt(3)) {
      case 0 -> {
        for (int flips = 1 + random.nextInt(8); flips > 0; flips--) {
          bad[random.nextInt(bad.length)] ^= (byte) (1 + random.nextInt(255));
        }
      }
      case 1 -> bad = Arrays.copyOf(bad, random.nextInt(bad.length));
      default -> {
        int at = random.nextInt(bad.length);
        bad[at] = (byte) random.nextInt(256);
        bad = Arrays.copyOf(bad, at + random.nextInt(bad.length - at));
      }
    }
    return bad;
  }
}
