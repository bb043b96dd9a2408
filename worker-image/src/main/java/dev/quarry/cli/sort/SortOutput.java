package dev.quarry.cli.sort;

import dev.quarry.core.json.Json;
import dev.quarry.core.sort.PhaseResult;
import dev.quarry.core.units.ByteSize;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/** How a sort command reports: a line per phase for people, or JSON; and optionally a JSON file for the operator. */
public final class SortOutput {
  @Option(names = "--json", description = "Print the results as JSON on stdout instead of a summary.")
  boolean json;

  @Option(names = "--result", paramLabel = "FILE", description = "Also write the results as JSON to FILE.")
  Path resultFile;

  void print(PrintWriter out, List<PhaseResult> results) throws IOException {
    String text = Json.write(results.size() == 1 ? results.get(0) : results);
    if (resultFile != null) {
      Files.writeString(resultFile, Json.writeCompact(results.size() == 1 ? results.get(0) : results));
    }
    if (json) {
      out.println(text);
    } else {
      for (PhaseResult result : results) {
        out.printf(Locale.ROOT, "%-7s %d shards, %d records, %s in %.1f s (%s/s); requests: %d GET, %d PUT, %d LIST,"
                + " %d HEAD, %d DELETE%s%n",
            result.phase(), result.shards(), result.records(), ByteSize.format(result.bytes()),
            result.elapsedSeconds(), ByteSize.format(result.bytesPerSecond()), result.requests().get(),
            result.requests().put(), result.requests().list(), result.requests().head(), result.requests().delete(),
            result.problems().isEmpty() ? "" : "; problems: " + result.problems());
        result.warnings().forEach(warning -> out.println("  warning: " + warning));
      }
    }
    out.flush();
  }
}
