package dev.quarry.core.gen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.ShardFormat;
import dev.quarry.testkit.CommandResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatasetGeneratorTest {
  private static final DatasetSpec SPEC = new DatasetSpec("train", 3, 50, 4096, 25, 10, ShardFormat.TAR, 42);

  @TempDir Path temp;

  @Test
  void gnuTarListsEveryRecordWithItsMembersAdjacent() throws Exception {
    Path out = temp.resolve("ds");
    List<GeneratedShard> shards = new DatasetGenerator(SPEC).writeTo(out, 2, shard -> {});

    assertThat(shards).extracting(GeneratedShard::name)
        .containsExactly("train-000000.tar", "train-000001.tar", "train-000002.tar");
    List<String> names = run(out, "tar", "-tf", "train-000001.tar");
    assertThat(names).hasSize(100);
    assertThat(names.get(0)).isEqualTo("sample-000000050.cls");
    assertThat(names.get(1)).isEqualTo("sample-000000050.jpg");
    assertThat(names.get(99)).isEqualTo("sample-000000099.jpg");
    for (GeneratedShard shard : shards) {
      assertThat(shard.records()).isEqualTo(50);
      assertThat(shard.bytes()).isEqualTo(Files.size(out.resolve(shard.name())));
    }
  }

  @Test
  void pythonTarfileReadsImageSizesWithinTheJitterAndLabelsWithinTheClasses() throws Exception {
    Path out = temp.resolve("ds");
    new DatasetGenerator(SPEC).writeTo(out, 1, shard -> {});
    List<String> rows = run(out, "python3", "-c", """
        import tarfile
        with tarfile.open('train-000000.tar') as t:
            for m in t.getmembers():
                data = t.extractfile(m).read()
                print(m.name, m.size, m.mtime, oct(m.mode), m.uname, data.decode() if m.name.endswith('.cls') else '')
        """);
    assertThat(rows).hasSize(100);
    for (String row : rows) {
      String[] fields = row.split(" ", -1);
      assertThat(fields[2]).as("fixed mtime").isEqualTo("0");
      assertThat(fields[3]).as("fixed mode").isEqualTo("0o444");
      assertThat(fields[4]).as("fixed owner").isEqualTo("quarry");
      int size = Integer.parseInt(fields[1]);
      if (fields[0].endsWith(".jpg")) {
        assertThat(size).isBetween(3072, 5120);
      } else {
        assertThat(Integer.parseInt(fields[5])).isBetween(0, 9);
      }
    }
  }

  @Test
  void sameSpecGivesByteIdenticalShardsWhateverTheThreadCount() throws Exception {
    new DatasetGenerator(SPEC).writeTo(temp.resolve("a"), 1, shard -> {});
    new DatasetGenerator(SPEC).writeTo(temp.resolve("b"), 3, shard -> {});
    new DatasetGenerator(new DatasetSpec("train", 3, 50, 4096, 25, 10, ShardFormat.TAR, 43))
        .writeTo(temp.resolve("c"), 1, shard -> {});
    for (String name : List.of("train-000000.tar", "train-000001.tar", "train-000002.tar")) {
      byte[] a = Files.readAllBytes(temp.resolve("a").resolve(name));
      assertThat(Files.readAllBytes(temp.resolve("b").resolve(name))).isEqualTo(a);
      assertThat(Files.readAllBytes(temp.resolve("c").resolve(name))).as("another seed").isNotEqualTo(a);
    }
  }

  @Test
  void leavesNoPartialFilesBehind() throws Exception {
    Path out = temp.resolve("ds");
    new DatasetGenerator(SPEC).writeTo(out, 2, shard -> {});
    try (Stream<Path> files = Files.list(out)) {
      assertThat(files.map(p -> p.getFileName().toString())).allMatch(n -> n.matches("train-00000[0-2]\\.tar"));
    }
  }

  @Test
  void refusesInvalidSpecsWithTheRule() {
    assertThatThrownBy(() -> new DatasetSpec("train", 0, 1, 1, 0, 1, ShardFormat.TAR, 1))
        .hasMessage("Invalid shard count: 0 (must be from 1 to 1000000)");
    assertThatThrownBy(() -> new DatasetSpec("a/b", 1, 1, 1, 0, 1, ShardFormat.TAR, 1))
        .hasMessage("Invalid name prefix: a/b (must be letters, digits, '.', '_' or '-')");
    assertThatThrownBy(() -> new DatasetSpec("t", 1, 1, 1, 101, 1, ShardFormat.TAR, 1))
        .hasMessage("Invalid size jitter: 101 (must be from 0 to 100)");
  }

  @Test
  void reportsAnUnwritableFolder() throws IOException {
    Path file = Files.writeString(temp.resolve("not-a-dir"), "x");
    assertThatThrownBy(() -> new DatasetGenerator(SPEC).writeTo(file.resolve("ds"), 1, shard -> {}))
        .isInstanceOf(IOException.class);
  }

  private static List<String> run(Path dir, String... command) throws Exception {
    return CommandResult.check(dir, command).lines().toList();
  }
}
