package dev.quarry.cli.sync;

import dev.quarry.core.json.Json;
import dev.quarry.core.sync.Amount;
import dev.quarry.core.sync.PathList;
import dev.quarry.core.sync.SyncResult;
import dev.quarry.core.text.Printable;
import dev.quarry.core.units.ByteSize;
import dev.quarry.core.units.Counted;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine.Option;

/** How a sync command reports: a few lines for people, or JSON; and optionally a JSON file for the operator. */
final class SyncOutput {
  /** Paths shown per list for people; --json shows them all. */
  static final int PATHS_SHOWN = 20;
  /**
   * Paths kept per list in the --result file: the operator reads it from a termination message, which Kubernetes
   * cuts at 4 KiB.
   */
  static final int PATHS_IN_RESULT_FILE = 5;
  /** Bytes (UTF-8) kept of each path in the --result file: 4 lists of 5 paths stay well under 4 KiB. */
  static final int PATH_BYTES_IN_RESULT_FILE = 100;

  @Option(names = "--json", description = "Print the result as JSON on stdout instead of a summary.")
  boolean json;

  @Option(names = "--result", paramLabel = "FILE", description = "Also write the result as JSON to FILE.")
  Path resultFile;

  void print(PrintWriter out, SyncResult result) throws IOException {
    String text = Json.write(result);
    if (resultFile != null) {
      Files.writeString(resultFile, Json.writeCompact(result.withPathsSampled(PATHS_IN_RESULT_FILE,
          PATH_BYTES_IN_RESULT_FILE)));
    }
    if (json) {
      out.println(text);
    } else {
      out.printf(Locale.ROOT, "%s %s%s: %s, %s%n", result.operation(), result.remote(),
          result.version() != null ? " " + result.version() : "", Counted.of(result.files(), "file"),
          ByteSize.format(result.bytes()));
      line(out, "missing on the remote", result.missingRemote());
      line(out, "missing locally", result.missingLocal());
      if (result.changes() != null) {
        paths(out, "added", result.changes().added());
        paths(out, "modified", result.changes().modified());
        paths(out, "deleted", result.changes().deleted());
        paths(out, "not on the remote", result.changes().notOnRemote());
      }
      boolean gc = result.operation().equals("gc");
      line(out, gc ? "deleted" : "transferred", result.transferred());
      line(out, "unreachable and older than the grace period", result.unreachable());
      line(out, "kept (younger than the grace period)", result.retained());
      if (result.strategy() != null) {
        out.printf(Locale.ROOT, "  lookup: %s (%s)%n", result.strategy().name(), result.strategy().reason());
      }
      var requests = result.requests();
      out.printf(Locale.ROOT, "  requests: %d HEAD, %d LIST, %d GET, %d PUT, %d DELETE in %.1f s%n", requests.head(),
          requests.list(), requests.get(), requests.put(), requests.delete(), result.elapsedSeconds());
      result.warnings().forEach(warning -> out.println("  warning: " + warning));
    }
    out.flush();
  }

  /** A list of paths, at most {@link #PATHS_SHOWN}, each made safe to print, then how many more there are. */
  private static void paths(PrintWriter out, String label, PathList list) {
    if (list.isEmpty()) {
      return;
    }
    out.printf(Locale.ROOT, "  %s: %d path%s%n", label, list.count(), list.count() == 1 ? "" : "s");
    list.first(PATHS_SHOWN).paths().forEach(path -> out.println("    " + Printable.of(path)));
    long more = list.count() - Math.min(list.count(), PATHS_SHOWN);
    if (more > 0) {
      out.printf(Locale.ROOT, "    and %d more (--json lists every path)%n", more);
    }
  }

  private static void line(PrintWriter out, String label, Amount amount) {
    if (amount != null) {
      out.printf(Locale.ROOT, "  %s: %s, %s%n", label, Counted.of(amount.objects(), "object"),
          ByteSize.format(amount.bytes()));
    }
  }
}
