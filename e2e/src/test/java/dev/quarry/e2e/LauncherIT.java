package dev.quarry.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.testkit.CommandResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./quarry} launcher as users run it: its first run of a command records a startup cache for that
 * command, and neither that run nor later ones add anything to the command's stdout.
 */
class LauncherIT {
  private static final Path LAUNCHER = Path.of("..", "quarry").toAbsolutePath().normalize();

  @TempDir Path cacheHome;

  private CommandResult quarry(String... args) throws IOException, InterruptedException {
    return quarryWith("", args);
  }

  private CommandResult quarryWith(String javaOptions, String... args) throws IOException, InterruptedException {
    return CommandResult.run(cacheHome, Map.of("XDG_CACHE_HOME", cacheHome.toString(), "QUARRY_JAVA_OPTIONS",
        javaOptions), Stream.concat(Stream.of(LAUNCHER.toString()), Stream.of(args)).toList());
  }

  /** The JVM's largest heap for a command, as the JVM reports it. */
  private long maxHeap(String javaOptions, String... args) throws IOException, InterruptedException {
    CommandResult run = quarryWith(javaOptions + " -XX:+PrintFlagsFinal", args);
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    // The run that records a startup cache sends the JVM's own output to stderr.
    return (run.stdout() + run.stderr()).lines().filter(line -> line.matches("\\s*size_t MaxHeapSize\\s+=.*")).findFirst()
        .map(line -> Long.parseLong(line.replaceAll(".*=\\s*(\\d+).*", "$1"))).orElseThrow();
  }

  /**
   * A sort's heap is its memory budget, from the option, the spec file or the default: with the JVM's default heap
   * (a quarter of the machine) a sort ran at several times its budget.
   */
  @Test
  void aSortsHeapIsItsMemoryBudget() throws Exception {
    Path spec = cacheHome.resolve("job.yaml");
    Files.writeString(spec, "spec:\n  workers:\n    memoryBudget: \"80Mi\"\n");

    assertThat(maxHeap("", "sort", "run", "--memory-budget", "96Mi", "--help")).isEqualTo(96L << 20);
    assertThat(maxHeap("", "sort", "run", "--memory-budget=112Mi", "--help")).isEqualTo(112L << 20);
    assertThat(maxHeap("", "sort", "extract", "--spec", spec.toString(), "--help")).isEqualTo(80L << 20);
    assertThat(maxHeap("", "sort", "plan", "--help")).as("the default budget").isEqualTo(1L << 30);
    assertThat(maxHeap("-Xmx200m", "sort", "run", "--memory-budget", "96Mi", "--help")).as("the user's heap wins")
        .isEqualTo(200L << 20);
  }

  private List<String> startupCaches() throws IOException {
    Path folder = cacheHome.resolve("quarry/startup");
    try (Stream<Path> files = Files.list(folder)) {
      return files.map(file -> file.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void aCommandGetsAStartupCacheAndItsStdoutStaysCleanFromTheFirstRunOn() throws Exception {
    List<CommandResult> runs = List.of(quarry("gen", "--help"), quarry("gen", "--help"), quarry("gen", "--help"));
    CommandResult version = quarry("--version");

    for (CommandResult run : runs) {
      assertThat(run.exitCode()).isZero();
      assertThat(run.stdout()).startsWith("Usage: quarry gen ").isEqualTo(runs.getFirst().stdout());
      assertThat(run.stderr()).doesNotContain("Aborted", "fatal error");
    }
    assertThat(runs.getLast().stderr()).as("the cache exists by then: nothing is recorded").isEmpty();
    // Where this JDK cannot make an AOT cache for the command, it records why and falls back to a class-data archive.
    assertThat(startupCaches()).filteredOn(name -> name.endsWith("-gen.aot") || name.endsWith("-gen.jsa"))
        .singleElement().asString().matches("quarry-\\d+-\\d+-java\\d+-gen\\.(aot|jsa)");
    assertThat(version.stdout()).isEqualTo("quarry development\n");
    assertThat(startupCaches()).anySatisfy(name -> assertThat(name).matches("quarry-.*-other\\.(aot|jsa)"));
    try (Stream<Path> files = Files.list(cacheHome)) {
      assertThat(files.map(Path::getFileName).map(Path::toString)).noneMatch(name -> name.startsWith("hs_err"));
    }
  }
}
