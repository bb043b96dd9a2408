package dev.quarry.core.sort.extract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.ShardWriter;
import dev.quarry.core.archive.ShardWriters;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.SortPhases;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.testkit.CommandResult;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Input shards of many small records extract under the least budget's heap (16Mi: 64 MiB), into one partition and
 * spread over two: each shard's grouping spills to the worker's disk past its share of the budget
 * ({@link RecordGrouping}), and its records go into the sorter (through their partitions' segments) one by one. Before,
 * each shard's grouping, a map of every record and a set of every member name, was held whole in the heap, then its
 * entries as a list (twice while moved into partitions), 4 shards at once, outside the sorter's budget: 2 shards of
 * 150,000 records with keys of 60 characters ran the child out of heap.
 */
class ShardEntriesHeapTest {
  private static final int SHARDS = 2;
  private static final int RECORDS = 150_000;
  /** Long enough keys that a shard's entries are some 28 MB in the heap. */
  private static final String FOLDER = "k".repeat(48);

  @TempDir
  Path dir;

  @ParameterizedTest(name = "{0} partitions")
  @ValueSource(ints = {1, 2})
  void shardsOfManySmallRecordsExtractUnderTheLeastBudget(int partitions) throws Exception {
    Path in = Files.createDirectories(dir.resolve("in"));
    for (int shard = 0; shard < SHARDS; shard++) {
      try (OutputStream out = Files.newOutputStream(in.resolve(String.format("in-%03d.tar", shard)));
          ShardWriter writer = ShardWriters.open(ShardFormat.TAR, out)) {
        for (int record = 0; record < RECORDS; record++) {
          String key = String.format("s%d/%s/r%07d", shard, FOLDER, (record * 7919L) % RECORDS);
          writer.write(new Record(key, List.of(new Member(key + ".txt",
              Integer.toString(record).getBytes(StandardCharsets.US_ASCII)))));
        }
      }
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    CommandResult run = CommandResult.run(dir, List.of(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
        SmallHeapExtract.class.getName(), dir.toString(), Integer.toString(partitions)));
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(run.stdout().lines()).containsExactly("records " + SHARDS * RECORDS, "grouped on disk " + SHARDS);
  }

  /** Extracts the input shards as an extract worker of the least budget does. */
  public static final class SmallHeapExtract {
    public static void main(String[] args) throws Exception {
      Path dir = Path.of(args[0]);
      List<String> inputs = new ArrayList<>();
      for (int shard = 0; shard < SHARDS; shard++) {
        inputs.add(dir + String.format("/in/in-%03d.tar", shard));
      }
      SortSpec spec = new SortSpec(new SortSpec.Input(null, null, inputs, null),
          new SortSpec.Output(dir + "/out/x-{0..}.tar", "tar", null, 10_000L, null),
          new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null), null, new SortSpec.Workers("16Mi", null), null,
          false);
      try (ObjectStores stores = new ObjectStores(S3Settings.defaults())) {
        Location scratch = stores.locate(dir + "/scratch/");
        SortPhases phases = new SortPhases(spec, stores, scratch,
            new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false,
            new PrintStream(OutputStream.nullOutputStream()));
        var extract = phases.extract(0, 1, Integer.parseInt(args[1]));
        System.out.println("records " + extract.records());
        System.out.println("grouped on disk " + extract.details().get("shardsGroupedOnDisk"));
      }
    }
  }
}
