package dev.quarry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StartupTrainingTest {
  @TempDir Path temp;

  @Test
  void runsEveryPodCommandToTheEnd() throws Exception {
    StartupTraining.run(temp);

    // The phases committed, with the same shards as the local run: every phase command ran through.
    List<Path> phases = shards(temp.resolve("phases"));
    assertThat(phases).hasSizeGreaterThan(1);
    assertThat(phases.stream().map(p -> p.getFileName().toString()).toList())
        .isEqualTo(shards(temp.resolve("run")).stream().map(p -> p.getFileName().toString()).toList());
    for (Path shard : phases) {
      assertThat(Files.readAllBytes(shard)).isEqualTo(Files.readAllBytes(temp.resolve("run").resolve(
          shard.getFileName())));
    }
    try (Stream<Path> manifests = Files.list(temp.resolve("phases"))) {
      assertThat(manifests.map(p -> p.getFileName().toString())).anyMatch(name -> name.endsWith(".json"));
    }
    assertThat(temp.resolve("pulled/folder/file")).hasContent("quarry");
  }

  @Test
  void aFailingCommandFailsTheTrainingWithItsOutput() throws Exception {
    Files.writeString(temp.resolve("remote"), "a file where the sync remote's folder should be");

    assertThatThrownBy(() -> StartupTraining.run(temp)).isInstanceOf(IOException.class)
        .hasMessageContaining("quarry sync push").hasMessageContaining("exited with 1")
        .hasMessageContaining("remote");
  }

  private static List<Path> shards(Path folder) throws IOException {
    try (Stream<Path> files = Files.list(folder)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".tar")).sorted().toList();
    }
  }
}
