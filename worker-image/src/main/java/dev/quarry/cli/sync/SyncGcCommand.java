package dev.quarry.cli.sync;

import dev.quarry.cli.output.ProgressLog;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.gc.GarbageCollector;
import dev.quarry.core.units.Durations;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code quarry sync gc}. */
@Command(
    name = "gc",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {"Finds the objects that no ref, no ref log entry younger than the retention and no push in"
        + " flight can reach, and that are older than the grace period. Reports them; deletes them (manifests before"
        + " blobs) only with --delete.", ""},
    footer = {"", "Example:", "  quarry sync gc --remote s3://datasets/cas/coco --grace-period 48h --delete"})
public final class SyncGcCommand implements Callable<Integer> {
  @Spec CommandSpec command;
  @Mixin RemoteOptions remote;
  @Mixin SyncOutput output;

  @Option(names = "--delete", description = "Delete the garbage; without it, gc is a dry run.")
  boolean delete;

  @Option(names = "--grace-period", defaultValue = "24h", paramLabel = "DURATION",
      description = "Never delete objects younger than this (default: ${DEFAULT-VALUE}).")
  String gracePeriod;

  @Option(names = "--retention", defaultValue = "720h", paramLabel = "DURATION",
      description = "Keep every version a ref log entry younger than this names, so that a ref moved by mistake can"
          + " be pulled back by digest (default: ${DEFAULT-VALUE}, 30 days).")
  String retention;

  @Override
  public Integer call() throws Exception {
    var grace = Durations.parse(gracePeriod);
    var keep = Durations.parse(retention);
    Path state = remote.stateDir != null ? remote.stateDir
        : Path.of(System.getProperty("user.home"), ".cache", "quarry", "sync");
    remote.stateDir = state;
    try (ObjectStores stores = remote.stores(Path.of(""));
        SyncSession session = remote.session(stores, state, ProgressLog.to(command.commandLine().getErr()))) {
      output.print(command.commandLine().getOut(),
          GarbageCollector.run(session, new GarbageCollector.Options(!delete, grace, keep)));
    }
    return 0;
  }
}
