package dev.quarry.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.testkit.CommandResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./quarry} launcher as users run it: every command starts from the startup cache made with the jar
 * (worker-image/startup-cache.sh), from its first run on; no run records anything, prints anything of the JVM's or
 * leaves files behind.
 */
class LauncherIT {
  private static final Path LAUNCHER = Path.of("..", "quarry").toAbsolutePath().normalize();
  private static final Path JAR = Path.of("..", "worker-image", "target", "quarry.jar").toAbsolutePath().normalize();

  @TempDir Path cacheHome;

  private CommandResult quarry(Map<String, String> environment, String... args)
      throws IOException, InterruptedException {
    Map<String, String> withCache = new HashMap<>(environment);
    withCache.put("XDG_CACHE_HOME", cacheHome.toString());
    return CommandResult.run(cacheHome, withCache,
        Stream.concat(Stream.of(LAUNCHER.toString()), Stream.of(args)).toList());
  }

  private CommandResult quarryWith(String javaOptions, String... args) throws IOException, InterruptedException {
    return quarry(Map.of("QUARRY_JAVA_OPTIONS", javaOptions), args);
  }

  /** The JVM's largest heap for a command, as the JVM reports it. */
  private long maxHeap(String javaOptions, String... args) throws IOException, InterruptedException {
    CommandResult run = quarryWith(javaOptions + " -XX:+PrintFlagsFinal", args);
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    return run.stdout().lines().filter(line -> line.matches("\\s*size_t MaxHeapSize\\s+=.*")).findFirst()
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

  @Test
  void everyCommandStartsFromTheJarsStartupCacheFromItsFirstRunAndRecordsNothing() throws Exception {
    // The JVM refuses to start when told the cache must be used and it cannot be: proof that the launcher passes it
    // and that it fits the jar and this runtime.
    Path aot = JAR.resolveSibling("quarry.aot");
    Map<String, String> cacheRequired = Map.of("QUARRY_JAVA_OPTIONS",
        Files.exists(aot) && Runtime.version().feature() >= 25 ? "-XX:AOTMode=on" : "-Xshare:on");
    assertThat(Stream.of(aot, JAR.resolveSibling("quarry.jsa"))).anyMatch(Files::isRegularFile);

    List<CommandResult> runs = List.of(quarry(cacheRequired, "gen", "--help"), quarry(cacheRequired, "gen", "--help"),
        quarry(cacheRequired, "sync", "log", "--help"));
    for (CommandResult run : runs) {
      assertThat(run.exitCode()).as(run.stderr()).isZero();
      assertThat(run.stdout()).startsWith("Usage: quarry ");
      assertThat(run.stderr()).as("nothing recorded, nothing of the JVM's").isEmpty();
    }
    assertThat(runs.get(0).stdout()).isEqualTo(runs.get(1).stdout());
    CommandResult mistyped = quarry(cacheRequired, "snyc");
    assertThat(mistyped.exitCode()).isEqualTo(2);
    assertThat(mistyped.stderr()).startsWith("Unmatched argument at index 0: 'snyc'");
    try (Stream<Path> files = Files.list(cacheHome)) {
      assertThat(files).as("no cache per command, no crash reports").isEmpty();
    }
  }

  @Test
  void theCachesOfEarlierLaunchersGo() throws Exception {
    Path old = Files.createDirectories(cacheHome.resolve("quarry/startup"));
    Files.writeString(old.resolve("quarry-35089761-1795686027-java25-gen.aot"), "a cache per command");

    assertThat(quarry(Map.of(), "--help").exitCode()).isZero();

    assertThat(old).doesNotExist();
    assertThat(cacheHome.resolve("quarry")).exists();
  }
}
