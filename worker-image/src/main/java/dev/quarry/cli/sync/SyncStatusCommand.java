package dev.quarry.cli.sync;

import dev.quarry.cli.output.ProgressLog;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.sync.StatusCheck;
import dev.quarry.core.sync.SyncSession;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code quarry sync status}. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {"Shows what the remote lacks of the folder and what the folder lacks of the ref's version, in"
        + " objects and bytes, with the requests it took. Writes nothing to the remote.", ""},
    footer = {"", "Example:", "  quarry sync status /data/coco --remote s3://datasets/cas/coco --ref latest"})
public final class SyncStatusCommand implements Callable<Integer> {
  @Spec CommandSpec command;
  @Mixin RemoteOptions remote;
  @Mixin SyncOutput output;

  @Parameters(index = "0", paramLabel = "FOLDER", description = "The versioned folder.")
  Path folder;

  @Option(names = "--ref", defaultValue = "latest", paramLabel = "NAME",
      description = "The version to compare with (default: ${DEFAULT-VALUE}).")
  String ref;

  @Override
  public Integer call() throws Exception {
    try (ObjectStores stores = remote.stores();
        SyncSession session = remote.session(stores, folder, ProgressLog.to(command.commandLine().getErr()))) {
      output.print(command.commandLine().getOut(), StatusCheck.run(session, ref));
    }
    return 0;
  }
}
