package dev.quarry.core.archive.tar;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.CorruptionFuzzer;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.Shards;
import java.util.List;
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
    int failed = CorruptionFuzzer.fuzz(good, format.ordinal() * 7919L + 1, ITERATIONS,
        shard -> Shards.read(format, shard));
    assertThat(failed).as("corruptions detected out of " + ITERATIONS).isGreaterThan(ITERATIONS / 4);
  }
}
