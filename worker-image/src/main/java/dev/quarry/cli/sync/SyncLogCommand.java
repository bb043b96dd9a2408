package dev.quarry.cli.sync;

import dev.quarry.core.json.Json;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.sync.cas.RefLogEntry;
import dev.quarry.core.sync.remote.RefLog;
import dev.quarry.core.units.Counted;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code quarry sync log}. */
@Command(
    name = "log",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {"Shows the history of a ref, newest first: when it moved, who moved it and with what command, and"
        + " the root it named before and after. gc keeps every version named here for its --retention, so a bad"
        + " push is undone with sync pull --version <an older root>.", ""},
    footer = {"", "Example:", "  quarry sync log latest --remote s3://datasets/cas/coco"})
public final class SyncLogCommand implements Callable<Integer> {
  @Spec CommandSpec command;
  @Mixin RemoteOptions remote;

  @Parameters(index = "0", arity = "0..1", defaultValue = "latest", paramLabel = "REF",
      description = "The ref (default: ${DEFAULT-VALUE}).")
  String ref;

  @Option(names = "--limit", defaultValue = "50", paramLabel = "N",
      description = "Show at most N entries (default: ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--json", description = "Print the entries as a JSON array, newest first.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    if (limit < 1) {
      throw new IllegalArgumentException("Invalid --limit: " + limit + " (must be at least 1)");
    }
    try (ObjectStores stores = remote.stores(Path.of(""))) {
      List<RefLog.Record> records = remote.casRemote(stores).refLog().read(ref, limit);
      PrintWriter out = command.commandLine().getOut();
      if (json) {
        out.println(Json.write(records.stream().map(RefLog.Record::entry).toList()));
      } else if (records.isEmpty()) {
        out.println("ref " + ref + " has no log entries");
      } else {
        for (RefLog.Record record : records) {
          RefLogEntry entry = record.entry();
          out.printf(Locale.ROOT, "%s  %s  %s -> %s  %s, %s%n    by %s: %s%n", entry.at(), entry.ref(),
              entry.previousDigest().map(d -> d.text()).orElse("(new)"), entry.rootDigest().text(),
              Counted.of(entry.files(), "file"), Counted.of(entry.bytes(), "byte"), entry.by(), entry.command());
        }
      }
      out.flush();
    }
    return 0;
  }
}
