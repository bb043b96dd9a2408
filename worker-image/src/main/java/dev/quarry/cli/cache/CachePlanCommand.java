package dev.quarry.cli.cache;

import dev.quarry.core.cache.agent.CacheCapacity;
import dev.quarry.core.cache.plan.CacheCandidate;
import dev.quarry.core.cache.plan.CachePlan;
import dev.quarry.core.cache.plan.CachePlanner;
import dev.quarry.core.cache.plan.ImageChoice;
import dev.quarry.core.json.Json;
import dev.quarry.core.units.ByteSize;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code quarry cache plan}: the decision an agent would make for a traffic table, with its reasons. */
@Command(
    name = "plan",
    mixinStandardHelpOptions = true,
    description = {
      "Shows which images an agent would keep on local disk for the traffic in a CSV table, and why: forced images"
          + " (S3, then pinned) first, then the exact 0/1 knapsack over bytes read in the window.",
      "Table columns (header required): name,size,source[,local,cached,pinned,priority,s3]; sizes and byte counts"
          + " are quantities (40Gi).",
      ""
    },
    footer = {"", "Example:", "  quarry cache plan traffic.csv --capacity 500Gi --hysteresis 10"})
public final class CachePlanCommand implements Callable<Integer> {
  @Spec CommandSpec command;

  @Parameters(index = "0", paramLabel = "TABLE", description = "The traffic table (CSV).")
  Path table;

  @Option(names = "--capacity", required = true, description = "Cache capacity in bytes (500Gi); a percentage needs"
      + " a real cache folder and is not accepted here.")
  String capacity;

  @Option(names = "--hysteresis", defaultValue = "10", paramLabel = "PERCENT",
      description = "Extra value of images already cached (default: ${DEFAULT-VALUE}).")
  int hysteresis;

  @Option(names = "--json", description = "Print the plan as JSON on stdout instead of a table.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    CacheCapacity parsed = CacheCapacity.parse(capacity);
    if (parsed.percent() != 0) {
      throw new IllegalArgumentException("Invalid capacity: " + capacity + " (must be a byte quantity such as 500Gi"
          + " here: a percentage depends on the node's disk)");
    }
    List<CacheCandidate> candidates = TrafficTable.read(table);
    CachePlan plan = new CachePlanner(hysteresis).plan(candidates, parsed.bytes());
    PrintWriter out = command.commandLine().getOut();
    if (json) {
      out.println(Json.write(plan));
    } else {
      int width = Math.max(4, candidates.stream().mapToInt(c -> c.name().length()).max().orElse(4));
      String row = "%-" + width + "s  %-5s  %10s  %10s  %s%n";
      out.printf(Locale.ROOT, row, "NAME", "LOCAL", "SIZE", "READ", "WHY");
      for (int i = 0; i < candidates.size(); i++) {
        CacheCandidate c = candidates.get(i);
        ImageChoice choice = plan.choices().get(i);
        out.printf(Locale.ROOT, row, c.name(), choice.local() ? "yes" : "no", ByteSize.format(c.sizeBytes()),
            ByteSize.format(c.demandBytes()), choice.reason());
      }
      out.printf(Locale.ROOT, "%nPlanned %s of %s for %d images in %.2f ms%s%n", ByteSize.format(plan.plannedBytes()),
          ByteSize.format(plan.capacityBytes()), candidates.size(), plan.nanos() / 1e6,
          plan.exact() ? " (optimal)" : String.format(Locale.ROOT, " (within %.4f%% of optimal: search budget reached)",
              plan.maxShortfall() * 100));
    }
    out.flush();
    return 0;
  }
}
