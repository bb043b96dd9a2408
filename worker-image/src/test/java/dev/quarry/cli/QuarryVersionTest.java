package dev.quarry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.testkit.CommandResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class QuarryVersionTest {
  @TempDir Path temp;

  @Test
  void versionPrintsTheVersionAndTheCommitTheBuildWrote() {
    StringWriter out = new StringWriter();
    CommandLine commandLine = QuarryCommand.commandLine();
    commandLine.setOut(new PrintWriter(out, true));

    assertThat(commandLine.execute("--version")).isZero();

    // Tests run from the classes Maven built, with the build's file; this checkout is a git one.
    assertThat(out.toString()).matches("quarry \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit [0-9a-f]{12}(-modified)?\\)\n");
  }

  @Test
  void theBuildWritesUnknownForSourcesOutsideAGitCheckout() throws Exception {
    Path script = Files.copy(Path.of("build-info.sh"), temp.resolve("build-info.sh"));

    CommandResult run = CommandResult.run(temp, List.of("bash", script.toString(), "out/build.properties", "1.2.3"));

    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(temp.resolve("out/build.properties")).hasContent("version=1.2.3\ncommit=unknown");
  }

  @Test
  void aBuildOutsideAGitCheckoutSaysSo() {
    Properties build = new Properties();
    build.setProperty("version", "0.1.0");
    build.setProperty("commit", "unknown");

    assertThat(QuarryVersion.describe(build)).isEqualTo("quarry 0.1.0 (commit unknown: not built from a git checkout)");
  }

  @Test
  void classesNoBuildMadeSayDevelopment() {
    assertThat(QuarryVersion.describe(new Properties())).isEqualTo("quarry development");
  }
}
