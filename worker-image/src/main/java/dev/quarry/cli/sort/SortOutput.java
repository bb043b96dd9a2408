package dev.quarry.cli.sort;

import dev.quarry.core.json.Json;
import dev.quarry.core.sort.PhaseResult;
import dev.quarry.core.units.ByteSize;
import dev.quarry.core.units.Counted;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Option;

/** How a sort command reports: a line per phase for people, or JSON; and optionally a JSON file for the operator. */
public final class SortOutput {
  @Option(names = "--json", description = "Print the results as JSON on stdout instead of a summary.")
  boolean json;

  /** Kubernetes keeps this many bytes of a termination message, where the operator reads a worker's results. */
  static final int RESULT_FILE_LIMIT = 4096;

  @Option(names = "--result", paramLabel = "FILE", description = "Also write the results as compact JSON to FILE,"
      + " in at most 4 KiB (a Kubernetes termination message): longer warning lists are cut, and the plan's shard"
      + " names left out, to fit.")
  Path resultFile;

  void print(PrintWriter out, List<PhaseResult> results) throws IOException {
    String text = Json.write(oneOrList(results));
    if (resultFile != null) {
      Files.writeString(resultFile, forResultFile(results));
    }
    if (json) {
      out.println(text);
    } else {
      for (PhaseResult result : results) {
        out.printf(Locale.ROOT, "%-7s %s, %s, %s in %.1f s (%s/s); requests: %d GET, %d PUT, %d LIST,"
                + " %d HEAD, %d DELETE%s%n",
            result.phase(), Counted.of(result.shards(), "shard"), Counted.of(result.records(), "record"),
            ByteSize.format(result.bytes()),
            result.elapsedSeconds(), ByteSize.format(result.bytesPerSecond()), result.requests().get(),
            result.requests().put(), result.requests().list(), result.requests().head(), result.requests().delete(),
            result.problems().isEmpty() ? "" : "; problems: " + result.problems());
        result.warnings().forEach(warning -> out.println("  warning: " + warning));
      }
    }
    out.flush();
  }

  /**
   * The results as compact JSON of at most {@value #RESULT_FILE_LIMIT} bytes: a message cut by Kubernetes would not
   * parse, and the operator would lose the counts with it. Problem counts always stay; warning lists are cut to fewer
   * and fewer, the plan's shard names go, until it fits.
   */
  static String forResultFile(List<PhaseResult> results) {
    String text = compact(results);
    for (int warnings : new int[] {10, 3, 1, 0}) {
      if (text.getBytes(StandardCharsets.UTF_8).length <= RESULT_FILE_LIMIT) {
        break;
      }
      text = compact(results.stream().map(result -> shortened(result, warnings)).toList());
    }
    return text;
  }

  private static String compact(List<PhaseResult> results) {
    return Json.writeCompact(oneOrList(results));
  }

  /** What a command prints: its one result as an object, or the list when it ran more than one phase. */
  private static Object oneOrList(List<PhaseResult> results) {
    return results.size() == 1 ? results.get(0) : results;
  }

  private static PhaseResult shortened(PhaseResult result, int warnings) {
    List<String> kept = result.warnings();
    if (kept.size() > warnings) {
      kept = new ArrayList<>(kept.subList(0, warnings));
      kept.add("... and " + (result.warnings().size() - warnings) + " more warnings");
    }
    Map<String, Object> details = new LinkedHashMap<>(result.details());
    details.remove("shardNames");
    return new PhaseResult(result.phase(), result.index(), result.count(), result.startTime(), result.endTime(),
        result.elapsedSeconds(), result.shards(), result.records(), result.bytes(), result.bytesPerSecond(),
        result.requests(), result.problems(), kept, details);
  }
}
