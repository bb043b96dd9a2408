package dev.quarry.core.sort.create;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.fs.OpenFileLimit;
import dev.quarry.core.sort.input.InputShard;
import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.testkit.OpenDescriptors;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a record source reads the records of plain tar inputs where they are. */
class RecordSourceTest {
  @TempDir
  Path dir;

  /**
   * Every record of an input is read through one ranged reads of it, opened at its first record: a local input file
   * opens once, not once a record (a local sort of 1M records of 100 bytes took 7.5 s in create, 3.4 s once inputs
   * stayed open). Past {@link OpenFileLimit#PER_CACHE} inputs, the others' records are each a ranged GET, so the
   * files kept open stay within the process's limit however many inputs a sort has.
   */
  @Test
  void anInputsRecordsAreReadThroughOneOpeningOfItUpToTheLimitOfFilesKeptOpen() throws IOException {
    int inputCount = OpenFileLimit.PER_CACHE + 3;
    List<InputShard> inputs = new ArrayList<>();
    for (int i = 0; i < inputCount; i++) {
      Path file = dir.resolve(String.format("in-%05d.tar", i));
      Files.writeString(file, "record-a-of-" + i + "|record-b-of-" + i);
      inputs.add(new InputShard(i, file.toString(), ShardFormat.TAR));
    }
    AtomicInteger inputsOpened = new AtomicInteger();
    AtomicInteger rangedGets = new AtomicInteger();
    try (ObjectStores stores = new ObjectStores(S3Settings.defaults(), store -> new DelegatingStore(store) {
          @Override
          public RangeReads rangeReads(String key) throws IOException {
            inputsOpened.incrementAndGet();
            return store.rangeReads(key);
          }

          @Override
          public InputStream getRange(String key, long offset, long length) throws IOException {
            rangedGets.incrementAndGet();
            return super.getRange(key, offset, length);
          }
        });
        RecordSource source = new RecordSource(inputs, stores, null)) {
      for (int round = 0; round < 2; round++) { // every input's first record, then every input's second
        for (int i = 0; i < inputCount; i++) {
          String prefix = "record-a-of-" + i + "|";
          long offset = round == 0 ? 0 : prefix.length();
          String expected = round == 0 ? "record-a-of-" + i : "record-b-of-" + i;
          try (InputStream in = source.open(i, false, offset, expected.length())) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(expected);
          }
        }
      }
      assertThat(inputsOpened).as("inputs opened for ranged reads").hasValue(OpenFileLimit.PER_CACHE);
      assertThat(rangedGets).as("records read by a ranged GET each, of the inputs past the limit")
          .hasValue(2 * (inputCount - OpenFileLimit.PER_CACHE));
      assertThat(stores.requests().get()).as("a GET per record read, through the opened inputs or not")
          .isEqualTo(2L * inputCount);
      assertThat(OpenDescriptors.under(dir)).as("input files open").isEqualTo(OpenFileLimit.PER_CACHE);
    }
    assertThat(OpenDescriptors.under(dir)).as("input files open once the source is closed").isZero();
  }
}
