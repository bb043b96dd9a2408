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
    return CommandResult.run(cacheHome, Map.of("XDG_CACHE_HOME", cacheHome.toString()),
        Stream.concat(Stream.of(LAUNCHER.toString()), Stream.of(args)).toList());
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
