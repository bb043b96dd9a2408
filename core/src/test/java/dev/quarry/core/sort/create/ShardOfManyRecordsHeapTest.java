package dev.quarry.core.sort.create;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.ShardWriter;
import dev.quarry.core.archive.ShardWriters;
import dev.quarry.core.sort.LocalSort;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.SortPhases;
import dev.quarry.core.sort.extract.ScratchPacks;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.testkit.CommandResult;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One output shard of many small records is created under the least budget's heap (16Mi: 64 MiB): its entries past
 * the worker's allowance wait on its disk ({@link ShardEntries}), and its records are gathered a chunk of pieces at a
 * time ({@link ShardAssembly}). Before, a create batch was never less than one shard, whose entries and their pieces
 * were all held in the heap: 240,000 records with keys of 90 characters ran the child out of heap, as phases, as a
 * shard joined from pieces of two partitions, converted to zip, and in {@code sort run}. Each output is byte for byte
 * the one made under 1Gi, where everything is held.
 */
class ShardOfManyRecordsHeapTest {
  private static final int SHARDS = 2;
  private static final int RECORDS = 120_000;
  /** Long enough keys that the shard's entries are some 60 MB in the heap; its members hold no bytes. */
  private static final String FOLDER = "k".repeat(72);

  @TempDir
  Path dir;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"phases", "pieces", "zip", "run"})
  void aShardOfManyRecordsIsCreatedUnderTheLeastBudget(String mode) throws Exception {
    Path in = Files.createDirectories(dir.resolve("in"));
    for (int shard = 0; shard < SHARDS; shard++) {
      try (OutputStream out = Files.newOutputStream(in.resolve(String.format("in-%03d.tar", shard)));
          ShardWriter writer = ShardWriters.open(ShardFormat.TAR, out)) {
        for (int record = 0; record < RECORDS; record++) {
          String key = String.format("s%d/%s/r%07d", shard, FOLDER, (record * 7919L) % RECORDS);
          writer.write(new Record(key, List.of(new Member(key + ".txt", new byte[0]))));
        }
      }
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    CommandResult run = CommandResult.run(dir, List.of(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
        SmallHeapCreate.class.getName(), dir.toString(), mode, "16Mi", "small"));
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    SmallHeapCreate.main(new String[] {dir.toString(), mode, "1Gi", "held"});

    String extension = mode.equals("zip") ? ".zip" : ".tar";
    assertThat(outputs("small")).containsExactly("x-0" + extension);
    assertThat(sha256(dir.resolve("small/out/x-0" + extension)))
        .isEqualTo(sha256(dir.resolve("held/out/x-0" + extension)));
    assertThat(run.stdout().lines()).containsExactly("records " + SHARDS * RECORDS, "entries on disk true");
  }

  private List<String> outputs(String run) throws Exception {
    try (Stream<Path> listed = Files.list(dir.resolve(run + "/out"))) {
      return listed.map(path -> path.getFileName().toString()).filter(name -> name.startsWith("x-")).sorted()
          .toList();
    }
  }

  private static String sha256(Path file) throws Exception {
    var digest = Digest.sha256();
    try (var in = Files.newInputStream(file)) {
      in.transferTo(new java.security.DigestOutputStream(OutputStream.nullOutputStream(), digest));
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  /**
   * Sorts the inputs into one shard under {@code budget}, into folder {@code run}: extract and plan first (in this
   * process for phases), then create in the mode's way, printing the records created.
   */
  public static final class SmallHeapCreate {
    public static void main(String[] args) throws Exception {
      Path dir = Path.of(args[0]);
      String mode = args[1];
      String budget = args[2];
      Path run = dir.resolve(args[3]);
      List<String> inputs = new ArrayList<>();
      for (int shard = 0; shard < SHARDS; shard++) {
        inputs.add(dir + String.format("/in/in-%03d.tar", shard));
      }
      boolean zip = mode.equals("zip");
      SortSpec spec = new SortSpec(new SortSpec.Input(null, null, inputs, null),
          new SortSpec.Output(run + "/out/x-{0..}" + (zip ? ".zip" : ".tar"), zip ? "zip" : "tar", null,
              1_000_000L, null),
          new SortSpec.Order(OrderKind.SHUFFLE, null, 3L, null, null), null, new SortSpec.Workers(budget, null), null,
          false);
      PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
      try (ObjectStores stores = new ObjectStores(S3Settings.defaults())) {
        List<dev.quarry.core.sort.PhaseResult> creates = new ArrayList<>();
        if (mode.equals("run")) {
          creates.addAll(LocalSort.run(spec, stores, Files.createDirectories(run.resolve("work")), quiet).stream()
              .filter(result -> result.phase().equals("create")).toList());
        } else {
          Location scratch = stores.locate(run + "/scratch/");
          SortPhases phases = new SortPhases(spec, stores, scratch,
              new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, quiet);
          if (mode.equals("pieces")) {
            phases.extract(0, 1, 2);
            phases.partition(0, 2, 1);
            phases.partition(1, 2, 1);
            phases.plan(1);
            creates.add(phases.create(0, 2));
            creates.add(phases.create(1, 2));
          } else {
            phases.extract(0, 1);
            phases.plan(1);
            creates.add(phases.create(0, 1));
          }
          phases.commit();
        }
        System.out.println("records " + creates.stream().mapToLong(result -> result.records()).sum());
        System.out.println("entries on disk " + (creates.stream()
            .mapToLong(result -> (Long) result.details().get("shardEntriesOnDisk")).sum() > 0));
      }
    }
  }
}
