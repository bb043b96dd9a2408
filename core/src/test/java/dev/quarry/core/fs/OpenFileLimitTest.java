package dev.quarry.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cache of open files gets a quarter of the process's soft limit on open files, within 16 to 4096. */
class OpenFileLimitTest {
  @TempDir
  Path dir;

  @Test
  void aQuarterOfTheSoftLimitWithinItsBounds() throws IOException {
    assertThat(OpenFileLimit.perCache(limits("1024", "4096"))).isEqualTo(256);
    assertThat(OpenFileLimit.perCache(limits("20000", "20000"))).isEqualTo(4096);
    assertThat(OpenFileLimit.perCache(limits("40", "1048576"))).as("the soft limit, not the hard").isEqualTo(16);
    assertThat(OpenFileLimit.perCache(limits("unlimited", "unlimited"))).isEqualTo(4096);
  }

  @Test
  void anUnknownLimitGivesTheDefault() throws IOException {
    assertThat(OpenFileLimit.perCache(dir.resolve("missing"))).isEqualTo(256);
    assertThat(OpenFileLimit.perCache(Files.writeString(dir.resolve("other"), "Max processes 1 1 processes\n")))
        .isEqualTo(256);
    assertThat(OpenFileLimit.perCache(limits("99999999999999999999999", "1")))
        .as("past a long").isEqualTo(256);
  }

  /**
   * The caches' bound is this process's own soft limit, as a child process sees it (it inherits the limit the JVM
   * raised at start), not the default.
   */
  @Test
  void theBoundIsAQuarterOfThisProcesssOwnLimit() throws IOException, InterruptedException {
    Process shell = new ProcessBuilder("sh", "-c", "ulimit -n").redirectErrorStream(true).start();
    String soft = new String(shell.getInputStream().readAllBytes()).strip();
    assertThat(shell.waitFor()).isZero();
    long files = soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
    assertThat(OpenFileLimit.PER_CACHE).isEqualTo((int) Math.clamp(files / 4, 16, 4096));
  }

  /** A {@code /proc/self/limits} as Linux writes it, with {@code soft} and {@code hard} open files. */
  private Path limits(String soft, String hard) throws IOException {
    return Files.writeString(dir.resolve("limits-" + soft), String.format("""
        Limit                     Soft Limit           Hard Limit           Units
        Max cpu time              unlimited            unlimited            seconds
        Max processes             127508               127508               processes
        Max open files            %-20s %-20s files
        Max locked memory         8388608              8388608              bytes
        """, soft, hard));
  }
}
