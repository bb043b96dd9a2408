package dev.quarry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code quarry sync get VERSION FILE} to a real standard output, in a process of its own: a reader that stops early
 * (| head) ends the download quietly with a non-zero exit, as cat does, and a full disk is one line and exit 1.
 */
class SyncGetToStandardOutputTest {
  private static final int SIZE = 32 << 20;

  @TempDir Path temp;
  private String remote;

  @BeforeEach
  void pushABigFile() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data"));
    byte[] bytes = new byte[SIZE];
    new Random(7).nextBytes(bytes);
    Files.write(data.resolve("big.bin"), bytes);
    remote = temp.resolve("remote").toString();
    CommandLine commandLine = QuarryCommand.commandLine();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(new StringWriter(), true));
    commandLine.setErr(new PrintWriter(err, true));
    assertThat(commandLine.execute("sync", "push", data.toString(), "--remote", remote)).as(err.toString()).isZero();
  }

  private ProcessBuilder get() {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
        QuarryCommand.class.getName(), "sync", "get", "latest", "big.bin", "--remote", remote))
        .redirectError(temp.resolve("stderr").toFile());
  }

  @Test
  void aReaderThatStopsEarlyEndsTheDownloadQuietlyWithANonZeroExit() throws Exception {
    Process process = get().start();
    try (InputStream stdout = process.getInputStream()) {
      assertThat(stdout.readNBytes(10)).hasSize(10);
    }
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("as a shell reports a writer stopped by SIGPIPE").isEqualTo(141);
    assertThat(Files.readString(temp.resolve("stderr"))).isEmpty();
  }

  @Test
  void aFullDiskIsOneLineAndExitOne() throws Exception {
    Process process = get().redirectOutput(new File("/dev/full")).start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isEqualTo(1);
    assertThat(Files.readString(temp.resolve("stderr"))).isEqualTo("quarry: Cannot write to standard output: No"
        + " space left on device\n");
  }
}
