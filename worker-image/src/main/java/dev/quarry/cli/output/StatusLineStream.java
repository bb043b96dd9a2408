package dev.quarry.cli.output;

import dev.quarry.core.progress.ProgressLine;
import dev.quarry.core.progress.StatusDisplay;
import dev.quarry.core.units.ByteSize;
import dev.quarry.core.units.Counted;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A log on a terminal: lines are written as lines, and a step's progress is one status line under them, redrawn in
 * place ({@code \r}, then erase to the end of the line) with a bar, the counts, the rate and the time left, as DVC
 * and rclone do. A line written while a status shows goes above it, and the status is drawn again below.
 */
final class StatusLineStream extends PrintStream implements StatusDisplay {
  /** Back to the start of the line, then erase it. */
  static final String CLEAR_LINE = "\r\033[K";

  private final OutputStream terminal;
  private final int width;
  private final ByteArrayOutputStream partialLine = new ByteArrayOutputStream();
  private String status;

  StatusLineStream(OutputStream terminal, Terminal size) {
    super(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
    this.terminal = terminal;
    this.width = size.width();
  }

  @Override
  public synchronized void write(int b) {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public synchronized void write(byte[] bytes, int offset, int length) {
    int start = offset;
    for (int i = offset; i < offset + length; i++) {
      if (bytes[i] == '\n') {
        partialLine.write(bytes, start, i + 1 - start);
        start = i + 1;
        writeLine(partialLine.toString(StandardCharsets.UTF_8));
        partialLine.reset();
      }
    }
    partialLine.write(bytes, start, offset + length - start);
  }

  @Override
  public synchronized void status(ProgressLine line) {
    status = render(line, width);
    emit(CLEAR_LINE + status);
  }

  @Override
  public synchronized void finish(ProgressLine line) {
    status = null;
    emit(CLEAR_LINE + line.plain() + "\n");
  }

  /** A whole line of the log, above the status line when one shows. */
  private void writeLine(String line) {
    emit(status == null ? line : CLEAR_LINE + line + status);
  }

  private void emit(String text) {
    try {
      terminal.write(text.getBytes(StandardCharsets.UTF_8));
      terminal.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * "push [=====>    ]  45% 3/10 objects 1.0 MiB/10 MiB 512 KiB/s ETA 0:07", at most {@code width - 1}
   * characters (the last column would wrap on some terminals): the bar takes what the rest leaves, and goes when
   * less than ten columns are left; the text is cut at the end if even that is too long.
   */
  static String render(ProgressLine line, int width) {
    double fraction = line.fraction();
    String counts = String.format(Locale.ROOT, "%3d%% %d/%d %s%s %s%s %s/s ETA %s", (int) (fraction * 100),
        line.done(), line.total(), Counted.noun(line.total(), line.unit()),
        line.detail() == null ? "" : " " + line.detail(), ByteSize.format(line.bytes()),
        line.totalBytes() >= 0 ? "/" + ByteSize.format(line.totalBytes()) : "",
        ByteSize.format(line.bytesPerSecond()), eta(fraction, line.seconds()));
    int room = width - 1 - line.what().length() - counts.length() - 4;
    String text = room >= 10
        ? line.what() + " [" + bar(fraction, room) + "] " + counts
        : line.what() + " " + counts;
    return text.length() <= width - 1 ? text : text.substring(0, width - 1);
  }

  private static String bar(double fraction, int cells) {
    int full = (int) Math.round(fraction * cells);
    if (full >= cells) {
      return "=".repeat(cells);
    }
    return "=".repeat(full) + (full > 0 ? ">" : " ") + " ".repeat(cells - full - 1);
  }

  /** The time left at the rate so far: "0:07", "12:40", "1:02:03"; "-:--" until something is done. */
  static String eta(double fraction, double seconds) {
    if (fraction <= 0) {
      return "-:--";
    }
    long left = Math.round(seconds * (1 - fraction) / fraction);
    long hours = left / 3600;
    return hours > 0 ? String.format(Locale.ROOT, "%d:%02d:%02d", hours, left / 60 % 60, left % 60)
        : String.format(Locale.ROOT, "%d:%02d", left / 60, left % 60);
  }
}
