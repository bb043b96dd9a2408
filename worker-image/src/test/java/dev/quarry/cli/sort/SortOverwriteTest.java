package dev.quarry.cli.sort;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.cli.QuarryCommand;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.TestTools;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The README's job run twice into one folder: the rerun with another shard size is refused and changes nothing;
 * with --overwrite only the new run's shards, index and manifest are left, and WebDataset reading every tar in the
 * folder (as the README does) loads each record once.
 */
class SortOverwriteTest {
  @TempDir Path temp;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int quarry(String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    CommandLine commandLine = QuarryCommand.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return commandLine.execute(args);
  }

  private int sort(String shardSize, String... more) {
    String[] args = Stream.concat(Stream.of("sort", "run", "--input", temp + "/input/train-{000000..000003}.tar",
        "--output", temp + "/shuffled/train-{000000..}.tar", "--order", "shuffle", "--seed", "42", "--shard-size",
        shardSize), Stream.of(more)).toArray(String[]::new);
    return quarry(args);
  }

  private Map<String, byte[]> shuffled() throws Exception {
    Map<String, byte[]> files = new TreeMap<>();
    try (Stream<Path> listed = Files.list(temp.resolve("shuffled"))) {
      for (Path file : listed.toList()) {
        files.put(file.getFileName().toString(), Files.readAllBytes(file));
      }
    }
    return files;
  }

  @Test
  void aRerunIsRefusedWithoutOverwriteAndLeavesOnlyTheNewRunWithIt() throws Exception {
    assertThat(quarry("gen", "--out", temp + "/input", "--shards", "4", "--records", "100", "--image-size", "4Ki"))
        .as(err.toString()).isZero();
    assertThat(sort("64Ki")).as(err.toString()).isZero();
    Map<String, byte[]> first = shuffled();
    assertThat(first).hasSizeGreaterThan(8).containsKey("train.manifest.json");

    assertThat(sort("256Ki")).isEqualTo(1);
    assertThat(err.toString().strip()).isEqualTo("quarry: Cannot sort into " + temp + "/shuffled/train-{000000..}.tar:"
        + " " + temp + "/shuffled/train.manifest.json commits the output of an earlier run (" + (first.size() - 2)
        + " shards); pass --overwrite (overwrite: true in a ShardSortJob) to replace it, or choose another output");
    Map<String, byte[]> refused = shuffled();
    assertThat(refused.keySet()).isEqualTo(first.keySet());
    first.forEach((name, bytes) -> assertThat(refused.get(name)).as(name).isEqualTo(bytes));

    assertThat(sort("256Ki", "--overwrite")).as(err.toString()).isZero();
    Map<String, byte[]> second = shuffled();
    assertThat(second.keySet()).hasSizeLessThan(first.size()).contains("train.manifest.json", "train.wids.json")
        .allMatch(name -> name.startsWith("train-") || name.equals("train.manifest.json")
            || name.equals("train.wids.json"));
    String samples = CommandResult.check(temp, TestTools.python().toString(), "-c", """
        import glob, webdataset as wds
        print(sum(1 for _ in wds.WebDataset(sorted(glob.glob('shuffled/*.tar')), shardshuffle=False)))
        """);
    assertThat(samples.strip()).isEqualTo("400");
  }

  @Test
  void helpExplainsOverwrite() {
    assertThat(quarry("sort", "run", "--help")).isZero();
    assertThat(out.toString()).contains("--overwrite").contains("Replace the committed output of an earlier run");
  }
}
