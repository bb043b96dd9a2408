package dev.quarry.cli.output;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.progress.ProgressLine;
import dev.quarry.core.progress.ProgressPrinter;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProgressLogTest {
  private static final String CLEAR = "\r\033[K";

  @TempDir Path temp;

  private final StringWriter err = new StringWriter();

  private static ProgressLine push(long objects, long bytes, double seconds) {
    return new ProgressLine("push", objects, 10, "object", null, bytes, 10 << 20, seconds);
  }

  @Test
  void elsewhereThanATerminalProgressIsPlainLinesAsBefore() {
    PrintStream log = ProgressLog.to(new PrintWriter(err, true), null);
    ProgressPrinter printer = new ProgressPrinter(log, true);

    log.println("scanned /data: 1 file, 1 folder, 1 hashed, 0.1 s");
    printer.print(push(3, 3 << 20, 2), false);
    printer.print(new ProgressLine("extract 0/2", 1, 1, "shard", "1 record", 2048, -1, 4), true);

    assertThat(err.toString()).isEqualTo("""
        scanned /data: 1 file, 1 folder, 1 hashed, 0.1 s
        push: 3/10 objects, 3.0 MiB/10.0 MiB, 1.5 MiB/s, 2.0 s
        extract 0/2: 1/1 shard, 1 record, 2.0 KiB, 512 B/s, 4.0 s
        """).doesNotContain("\r", "\033");
  }

  @Test
  void onATerminalOneStatusLineIsRedrawnInPlaceWithABarRateAndTimeLeft() {
    PrintStream log = ProgressLog.to(new PrintWriter(err, true), new Terminal(80));
    ProgressPrinter printer = new ProgressPrinter(log, true);

    printer.print(push(1, 1 << 20, 1), false);
    printer.print(push(5, 5 << 20, 5), false);
    log.println("warning: a line of the log");
    printer.print(push(8, 8 << 20, 8), false);
    printer.print(push(10, 10 << 20, 10), true);

    String out = err.toString();
    List<String> lines = Arrays.asList(out.split("\n", -1));
    assertThat(lines).hasSize(3).last().isEqualTo("");
    assertThat(lines.get(0)).as("two status lines, then the log line above a third")
        .startsWith(CLEAR + "push [==>               ]  10% 1/10 objects 1.0 MiB/10.0 MiB 1.0 MiB/s ETA 0:09")
        .contains(CLEAR + "push [").contains(" 50% 5/10 objects").endsWith(CLEAR + "warning: a line of the log");
    assertThat(lines.get(1)).as("the status drawn again under it, then redrawn").startsWith("push [=========>")
        .contains(CLEAR + "push [")
        .contains(" 80% 8/10 objects").endsWith(CLEAR + "push: 10/10 objects, 10.0 MiB/10.0 MiB, 1.0 MiB/s, 10.0 s");
    for (String drawn : out.split("\r\033\\[K|\n")) {
      assertThat(drawn.length()).as(drawn).isLessThanOrEqualTo(79);
    }
  }

  @Test
  void aNarrowTerminalDropsTheBarAndNothingWraps() {
    String status = StatusLineStream.render(new ProgressLine("extract 12/16", 3, 40, "shard", "12345 records",
        300L << 20, -1, 30), 40);

    assertThat(status).hasSizeLessThanOrEqualTo(39).startsWith("extract 12/16   7% 3/40 shards").doesNotContain("[");
  }

  @Test
  void theTimeLeftReadsAsAClock() {
    assertThat(StatusLineStream.eta(0, 5)).isEqualTo("-:--");
    assertThat(StatusLineStream.eta(0.5, 7)).isEqualTo("0:07");
    assertThat(StatusLineStream.eta(0.25, 1250)).isEqualTo("1:02:30");
  }

  @Test
  void aTerminalIsAStandardErrorThatIsATtyAndNotDumb() throws IOException {
    Path tty = Files.createSymbolicLink(temp.resolve("2"), Path.of("/dev/pts/3"));
    Path file = Files.createSymbolicLink(temp.resolve("file"), temp.resolve("log.txt"));

    assertThat(Terminal.of(tty, Map.of("COLUMNS", "132"))).contains(new Terminal(132));
    assertThat(Terminal.of(tty, Map.of())).contains(new Terminal(80));
    assertThat(Terminal.of(tty, Map.of("TERM", "dumb"))).isEmpty();
    assertThat(Terminal.of(file, Map.of())).isEmpty();
    assertThat(Terminal.of(temp.resolve("missing"), Map.of())).isEmpty();
  }
}
