package dev.quarry.core.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.Arrays;
import java.util.Random;

/**
 * Corrupts a good shard many times (flipped bytes, truncation, both) and reads each copy: every read must end
 * normally or in an {@link ArchiveException} saying "Cannot read ...", within 10 seconds. Shared by every format's
 * fuzz test.
 */
public final class CorruptionFuzzer {
  /** Reads a whole shard, members' data included. */
  public interface ShardRead {
    void read(byte[] shard) throws Exception;
  }

  private CorruptionFuzzer() {}

  /** Runs {@code iterations} corruptions with {@code seed}; returns how many reads failed (cleanly). */
  public static int fuzz(byte[] good, long seed, int iterations, ShardRead read) {
    Random random = new Random(seed);
    int failed = 0;
    for (int i = 0; i < iterations; i++) {
      byte[] bad = mutate(good, random);
      Throwable outcome = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
        try {
          read.read(bad);
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
    return failed;
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
