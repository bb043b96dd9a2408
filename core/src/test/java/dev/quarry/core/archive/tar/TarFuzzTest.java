package dev.quarry.core.archive.tar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.Shards;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Randomly corrupted shards never hang and never crash: each read ends normally or in an ArchiveException. */
class TarFuzzTest {
  private static final int ITERATIONS = 300;

  @ParameterizedTest
  @EnumSource(value = ShardFormat.class, names = {"TAR", "TAR_GZ", "TAR_LZ4"})
  void corruptShardsEndInAClearError(ShardFormat format) throws Exception {
    byte[] good = Shards.write(format, Shards.records(
        List.of("a", "b/" + "long".repeat(40), "c", "données/d"), 3000));
    Random random = new Random(format.ordinal() * 7919L + 1);
    int failed = 0;
    for (int i = 0; i < ITERATIONS; i++) {
      byte[] bad = mutate(good, random);
      Throwable outcome = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
        try {
          Shards.read(format, bad);
          return null;
        } catch (Throwable t) {
          return t;
        }
      });
      if (outcome != null) {
        assertThat(outcome).as("iteration %d", i).isInstanceOf(ArchiveException.class);
        assertThat(outcome.getMessage()).startsWith("Cannot read ");
        failed++;
      }
    }
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
