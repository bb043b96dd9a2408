package dev.quarry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class QuarryCommandTest {
  @TempDir Path temp;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int quarry(String... args) {
    CommandLine commandLine = QuarryCommand.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return commandLine.execute(args);
  }

  @Test
  void helpListsTheCommands() {
    assertThat(quarry("--help")).isZero();
    assertThat(out.toString()).contains("Usage: quarry").contains("gen ");
  }

  @Test
  void genWritesTheDatasetAndReportsItAsJson() throws Exception {
    Path dir = temp.resolve("ds");
    int exit = quarry("gen", "--out", dir.toString(), "--shards", "3", "--records", "20", "--image-size", "2Ki",
        "--prefix", "demo", "--json");

    assertThat(exit).as(err.toString()).isZero();
    JsonNode result = new ObjectMapper().readTree(out.toString());
    assertThat(result.get("shards").asLong()).isEqualTo(3);
    assertThat(result.get("records").asLong()).isEqualTo(60);
    assertThat(result.get("bytes").asLong()).isEqualTo(
        Files.size(dir.resolve("demo-000000.tar")) + Files.size(dir.resolve("demo-000001.tar"))
            + Files.size(dir.resolve("demo-000002.tar")));
    assertThat(result.get("shardList").get(2).get("name").asText()).isEqualTo("demo-000002.tar");
    assertThat(err.toString()).contains("gen: 3/3 shards");
  }

  @Test
  void genSummarizesForPeople() {
    assertThat(quarry("gen", "--out", temp.resolve("ds").toString(), "--shards", "2", "--records", "5")).isZero();
    assertThat(out.toString()).startsWith("Wrote 2 shards, 10 records, ");
  }

  @Test
  void badSizeIsOneLineThatSaysWhatToWrite() {
    assertThat(quarry("gen", "--out", temp.toString(), "--image-size", "100MB")).isEqualTo(1);
    assertThat(err.toString().strip()).isEqualTo("quarry: Invalid byte size: 100MB (must be a whole number with an"
        + " optional suffix Ki, Mi, Gi, Ti, Pi, Ei, k, M, G, T, P or E, for example 256Mi)");
  }

  @Test
  void unknownFormatNamesTheFormatsThereAre() {
    assertThat(quarry("gen", "--out", temp.toString(), "--format", "rar")).isEqualTo(2);
    assertThat(err.toString()).contains("Invalid shard format: rar (must be one of tar, tar.gz, tar.lz4, zip, msgpack)");
  }

  @Test
  void syncPullKeepsALocalEditUnlessForcedAndSaysSoInOneLine() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data"));
    Path copy = temp.resolve("copy");
    String remote = temp.resolve("cas").toString();
    Files.writeString(data.resolve("a"), "a1");
    assertThat(quarry("sync", "push", data.toString(), "--remote", remote)).as(err.toString()).isZero();
    assertThat(quarry("sync", "pull", copy.toString(), "--remote", remote)).as(err.toString()).isZero();
    Files.writeString(data.resolve("a"), "a2");
    assertThat(quarry("sync", "push", data.toString(), "--remote", remote)).as(err.toString()).isZero();
    Files.writeString(copy.resolve("a"), "my edit");
    err.getBuffer().setLength(0);

    assertThat(quarry("sync", "pull", copy.toString(), "--remote", remote)).isEqualTo(1);
    assertThat(err.toString().lines().filter(line -> line.startsWith("quarry: ")).toList()).containsExactly(
        "quarry: Cannot pull latest: 1 local files differ from both the version they came from and the new one: a"
            + " (pull with --force to replace them)");
    assertThat(copy.resolve("a")).hasContent("my edit");
    assertThat(quarry("sync", "pull", copy.toString(), "--remote", remote, "--force")).as(err.toString()).isZero();
    assertThat(copy.resolve("a")).hasContent("a2");
  }

  @Test
  void missingOutputFolderIsAUsageError() {
    assertThat(quarry("gen")).isEqualTo(2);
    assertThat(err.toString()).contains("Missing required option: '--out=DIR'");
  }

  @Test
  void sortRunFromOptionsShufflesAGeneratedDatasetIntoWholeShards() throws Exception {
    Path in = temp.resolve("in");
    assertThat(quarry("gen", "--out", in.toString(), "--shards", "3", "--records", "20", "--image-size", "1Ki"))
        .isZero();
    out.getBuffer().setLength(0);
    int exit = quarry("sort", "run", "--input", in + "/train-{000000..000002}.tar", "--output",
        temp + "/out/s-{00..}.tar", "--order", "shuffle", "--seed", "3", "--records-per-shard", "25", "--json");

    assertThat(exit).as(err.toString()).isZero();
    JsonNode results = new ObjectMapper().readTree(out.toString());
    assertThat(results).extracting(r -> r.get("phase").asText()).containsExactly("extract", "plan", "create",
        "commit");
    assertThat(results.get(2).get("records").asLong()).isEqualTo(60);
    assertThat(Files.exists(temp.resolve("out/s-02.tar"))).isTrue();
    assertThat(Files.exists(temp.resolve("out/s.manifest.json"))).isTrue();
    assertThat(err.toString()).contains("plan: 60 records into 3 tar shards");
  }

  @Test
  void sortRefusesAnUnknownOrderWithTheOrdersThereAre() {
    assertThat(quarry("sort", "run", "--input", temp + "/x-{0..1}.tar", "--output", temp + "/o-{0..}.tar",
        "--order", "random", "--shard-count", "2")).isEqualTo(1);
    assertThat(err.toString().strip()).isEqualTo("quarry: Invalid order: random (must be alphanumeric, none, md5,"
        + " shuffle, content or keymap)");
  }

  @Test
  void sortCleanDeletesOnlyTheNamesTheSortWritesUnderAMarkedScratch() throws Exception {
    Path scratch = temp.resolve("bucket/.quarry-scratch/job");
    Files.createDirectories(scratch.resolve("extract/00000"));
    Files.writeString(scratch.resolve(".quarry-scratch.json"), "{\"format\":\"quarry-sort-scratch/1\",\"job\":\""
        + "0".repeat(64) + "\"}");
    Files.writeString(scratch.resolve("extract/00000/run-4a1b0c9e-0000-4000-8000-000000000000-000000.run"), "runs");
    Files.writeString(scratch.resolve("inputs.json"), "[]");
    Path foreign = Files.writeString(scratch.resolve("notes.txt"), "mine");
    Path output = Files.writeString(temp.resolve("bucket/shard-000000.tar"), "output");

    int exit = quarry("sort", "clean", "--job", "0".repeat(64), "--scratch", scratch.toString(), "--json");

    assertThat(exit).as(err.toString()).isZero();
    JsonNode result = new ObjectMapper().readTree(out.toString());
    assertThat(result.get("objects").asLong()).isEqualTo(2);
    assertThat(result.get("bytes").asLong()).isEqualTo(6);
    assertThat(result.get("kept").asLong()).isEqualTo(1);
    try (var left = Files.walk(scratch)) {
      assertThat(left.filter(Files::isRegularFile)).containsExactly(foreign);
    }
    assertThat(output).hasContent("output");
    Files.delete(foreign);
    Files.writeString(scratch.resolve(".quarry-scratch.json"), "{\"format\":\"quarry-sort-scratch/1\",\"job\":\""
        + "1".repeat(64) + "\"}");
    Path planted = Files.writeString(scratch.resolve("inputs.json"), "[]");
    err.getBuffer().setLength(0);
    assertThat(quarry("sort", "clean", "--job", "0".repeat(64), "--scratch", scratch.toString())).isEqualTo(1);
    assertThat(err.toString().strip()).isEqualTo("quarry: Cannot clean file://" + scratch + "/: it is the scratch of"
        + " another job (its input, output, order or policies differ); nothing was deleted");
    assertThat(planted).hasContent("[]");
    Files.delete(scratch.resolve(".quarry-scratch.json"));
    Files.delete(planted);
    assertThat(quarry("sort", "clean", "--job", "0".repeat(64), "--scratch", scratch.toString())).as("idempotent").isZero();
  }

  @Test
  void aMissingFileIsOneLineThatSaysSo() {
    Path missing = temp.resolve("nope");
    assertThat(quarry("cache", "plan", "--help")).isZero();
    err.getBuffer().setLength(0);
    assertThat(quarry("sort", "clean", "--job", "0".repeat(64), "--scratch", missing + "/x/", "--result", missing + "/r.json")).isEqualTo(1);
    assertThat(err.toString().strip()).isEqualTo("quarry: Cannot find " + missing + "/r.json: no such file or"
        + " folder");
  }

  @Test
  void pushingOrComparingAFolderThatDoesNotExistIsRefusedAndCreatesNothing() {
    Path missing = temp.resolve("typo");
    for (String[] command : new String[][] {{"push", "push"}, {"status", "compare"}}) {
      err.getBuffer().setLength(0);
      assertThat(quarry("sync", command[0], missing.toString(), "--remote", temp.resolve("cas").toString()))
          .isEqualTo(1);
      assertThat(err.toString().strip()).isEqualTo("quarry: Cannot " + command[1] + " " + missing
          + ": no such folder");
      assertThat(missing).doesNotExist();
    }
  }

  @Test
  void aFileWhereAFolderShouldBeIsOneLineThatSaysSo() throws Exception {
    Path file = Files.writeString(temp.resolve("file"), "not a folder");
    assertThat(quarry("gen", "--out", file.toString(), "--shards", "1", "--records", "1")).isEqualTo(1);
    assertThat(err.toString().strip()).isEqualTo("quarry: Cannot create " + file + ": it exists and is not a"
        + " folder");
  }

  @Test
  void sortCleanRefusesAPrefixWithoutAScratchMarkerAndDeletesNothing() throws Exception {
    Path data = Files.createDirectories(temp.resolve("bucket/data"));
    Path shard = Files.writeString(data.resolve("inputs.json"), "precious");

    assertThat(quarry("sort", "clean", "--job", "0".repeat(64), "--scratch", data.toString())).isEqualTo(1);
    assertThat(err.toString().strip()).isEqualTo("quarry: Cannot clean file://" + data + "/: it has no"
        + " .quarry-scratch.json, so it is not a sort's scratch; nothing was deleted");
    assertThat(shard).hasContent("precious");
  }
}
