package dev.quarry.core.archive.zip;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.CorruptionFuzzer;
import dev.quarry.testkit.CommandResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Randomly corrupted zips never hang and never crash: each read ends normally or in an ArchiveException. */
class ZipFuzzTest {
  private static final int ITERATIONS = 300;

  @TempDir Path temp;

  @Test
  void corruptZipsWrittenHereEndInAClearError() throws Exception {
    byte[] good = ZipShards.write(ZipShards.records(List.of("a", "b/" + "long".repeat(40), "c", "données/d"), 3000));
    fuzz(good, 11);
  }

  @Test
  void corruptZipsWithDataDescriptorsEndInAClearError() throws Exception {
    // Python writing to a pipe: stored and deflated members whose sizes follow their data.
    CommandResult.check(temp, "sh", "-c", """
        python3 -c "
        import sys, zipfile, random
        r = random.Random(5)
        with zipfile.ZipFile(sys.stdout.buffer, 'w') as z:
            for i in range(6):
                method = zipfile.ZIP_STORED if i % 2 else zipfile.ZIP_DEFLATED
                z.writestr(zipfile.ZipInfo('s/%d.txt' % i), (b'sample %d ' % i) * 300, method)
                z.writestr(zipfile.ZipInfo('s/%d.bin' % i), bytes(r.randrange(256) for _ in range(2000)), method)
        " | cat > dd.zip
        """);
    byte[] good = Files.readAllBytes(temp.resolve("dd.zip"));
    assertThat(ZipShards.read(good)).hasSize(12);
    fuzz(good, 12);
  }

  private static void fuzz(byte[] good, long seed) {
    int failed = CorruptionFuzzer.fuzz(good, seed, ITERATIONS, ZipShards::read);
    assertThat(failed).as("corruptions detected out of " + ITERATIONS).isGreaterThan(ITERATIONS / 2);
  }
}
