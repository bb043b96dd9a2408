package dev.quarry.cli.sync;

import dev.quarry.cli.output.ProgressLog;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.push.Push;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code quarry sync push}. */
@Command(
    name = "push",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {"Uploads what the remote lacks of the folder (blobs, then manifests, then the ref) and moves the"
        + " ref to the folder's version, appending the move to the ref's log (see sync log). A failed or interrupted"
        + " push resumes where it stopped. A missing folder is refused, and so is an empty one unless --allow-empty.",
        ""},
    footer = {"", "Example:", "  quarry sync push /data/coco --remote s3://datasets/cas/coco --ref latest"})
public final class SyncPushCommand implements Callable<Integer> {
  @Spec CommandSpec command;
  @Mixin RemoteOptions remote;
  @Mixin SyncOutput output;

  @Parameters(index = "0", paramLabel = "FOLDER", description = "The folder to version.")
  Path folder;

  @Option(names = "--ref", defaultValue = "latest", paramLabel = "NAME",
      description = "The ref to point at the pushed version (default: ${DEFAULT-VALUE}).")
  String ref;

  @Option(names = "--allow-empty",
      description = "Push even if the folder holds no files (refused otherwise: a mistyped path usually is empty).")
  boolean allowEmpty;

  @Option(names = "--by", paramLabel = "NAME",
      description = "Who pushes, as the ref log records it (default: user@host).")
  String by;

  @Override
  public Integer call() throws Exception {
    try (ObjectStores stores = remote.stores(folder);
        SyncSession session = remote.session(stores, folder, ProgressLog.to(command.commandLine().getErr()))) {
      output.print(command.commandLine().getOut(), Push.run(session, ref,
          new Push.Options(allowEmpty, by != null ? by : Push.defaultAuthor())));
    }
    return 0;
  }
}
