package dev.quarry.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.testkit.CommandResult;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jar users run: help, a generated dataset, and a clean error for bad input. */
class QuarryGenIT {
  @TempDir Path temp;

  @Test
  void jarPrintsHelpAndVersion() throws Exception {
    CommandResult help = QuarryJar.run(temp, "--help");
    assertThat(help.exitCode()).isZero();
    assertThat(help.stdout()).contains("Usage: quarry", "gen");
    CommandResult version = QuarryJar.run(temp, "--version");
    assertThat(version.stdout()).startsWith("quarry ");
  }

  @Test
  void jarGeneratesADatasetThatGnuTarVerifies() throws Exception {
    CommandResult run = QuarryJar.run(temp, "gen", "--out", "ds", "--shards", "4", "--records", "25",
        "--image-size", "8Ki");
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(run.stdout()).startsWith("Wrote 4 shards, 100 records");
    for (int shard = 0; shard < 4; shard++) {
      Path file = temp.resolve("ds").resolve(String.format("train-%06d.tar", shard));
      assertThat(CommandResult.check(temp, "tar", "-tf", file.toString()).lines()).hasSize(50);
    }
    assertThat(Files.list(temp.resolve("ds")).count()).isEqualTo(4);
  }

  @Test
  void jarRefusesBadInputWithoutAStackTrace() throws Exception {
    CommandResult run = QuarryJar.run(temp, "gen", "--out", "ds", "--shards", "-3");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.stderr().strip()).isEqualTo("quarry: Invalid shard count: -3 (must be from 1 to 1000000)");
    assertThat(temp.resolve("ds")).doesNotExist();
  }
}
