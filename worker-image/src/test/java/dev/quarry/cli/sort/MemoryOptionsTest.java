package dev.quarry.cli.sort;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The heap option the launchers give a command, from the budget as the command reads it. */
class MemoryOptionsTest {
  @TempDir Path folder;

  @Test
  void aSortsHeapIsItsBudgetOrHalfOfItForSortRun() {
    assertThat(MemoryOptions.options(List.of("sort", "extract", "--memory-budget", "8Gi")))
        .containsExactly("-Xmx8192m");
    assertThat(MemoryOptions.options(List.of("sort", "run", "--memory-budget=16Gi"))).containsExactly("-Xmx8192m");
    assertThat(MemoryOptions.options(List.of("sort", "plan", "--memory-budget", "512000k")))
        .containsExactly("-Xmx488m");
  }

  /** The spec's workers.memoryBudget, found as the command finds it: not any text that looks like one. */
  @Test
  void aSpecFilesBudgetIsItsWorkersMemoryBudget() throws IOException {
    Path manifest = Files.writeString(folder.resolve("job.yaml"), """
        apiVersion: quarry.dev/v1alpha1
        kind: ShardSortJob
        metadata:
          annotations: {note: "memoryBudget: 4Ti"}
        spec:
          scratch: s3://b/memoryBudget:4Ti/
          workers:
            memoryBudget: 3Gi
        """);

    assertThat(MemoryOptions.options(List.of("sort", "extract", "--spec", manifest.toString())))
        .containsExactly("-Xmx3072m");
    assertThat(MemoryOptions.options(List.of("sort", "extract", "--spec=" + manifest, "--memory-budget", "1Gi")))
        .as("the option wins").containsExactly("-Xmx1024m");
  }

  /** What the command refuses, or another command, gives no option: the command says what is wrong. */
  @Test
  void aBudgetTheCommandRefusesAndOtherCommandsGiveNone() {
    assertThat(MemoryOptions.options(List.of("sort", "run", "--memory-budget", "1.5Gi"))).isEmpty();
    assertThat(MemoryOptions.options(List.of("sort", "run", "--memory-budget", "1K"))).isEmpty();
    assertThat(MemoryOptions.options(List.of("sort", "run", "--spec", folder.resolve("none.yaml").toString())))
        .isEmpty();
    assertThat(MemoryOptions.options(List.of("sync", "status", "--memory-budget", "1Gi"))).isEmpty();
  }
}
