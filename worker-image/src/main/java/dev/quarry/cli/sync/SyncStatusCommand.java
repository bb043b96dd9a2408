package dev.quarry.cli.sync;

import dev.quarry.cli.ErrorExitCode;
import dev.quarry.cli.output.ProgressLog;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.sync.StatusCheck;
import dev.quarry.core.sync.SyncResult;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.dvc.DvcStatus;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
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
        + " objects and bytes, with the requests it took, and names the paths: added, modified and deleted in the"
        + " folder since the ref's version (a folder deleted whole ends in /), and the files whose content the"
        + " remote lacks. Lists are cut at " + SyncOutput.PATHS_SHOWN + " paths; --json lists every path. Paths the"
        + " folder's .quarryignore ignores are left out. Writes nothing to the remote.",
        "With --dvc FILE.dvc --dvc-remote URL, compares with the version a DVC 3 .dvc file names instead, on its DVC"
        + " remote: paths by MD5 (cached in the state folder), and asks the DVC remote only about the contents on"
        + " changed paths (a file unchanged since the .dvc file is taken to be on it, as dvc status without --cloud"
        + " does). Paths DVC ignores (the .dvcignore files from the DVC project's top down to the folder, and .git,"
        + " .hg, .dvc) are left out, as dvc add leaves them out.", ""},
    footer = {"", "Exit status: 0, or with --exit-code or -q 1 when the folder and the ref's version differ or the"
        + " remote lacks something; an error exits 1, with a message on stderr, or with --exit-code or -q an error"
        + " exits 2 (as diff(1)), so that a script can tell a difference from a failure.", "",
        "Examples:", "  quarry sync status /data/coco --remote s3://datasets/cas/coco --ref latest",
        "  quarry sync status /data/coco -q || quarry sync push /data/coco",
        "  quarry sync status data --dvc data.dvc --dvc-remote s3://ml/dvcstore"})
public final class SyncStatusCommand implements Callable<Integer>, ErrorExitCode {
  /** The exit status of --exit-code and -q when there is a difference. */
  static final int DIFFERS = 1;
  /** The exit status of an error with --exit-code or -q, as diff(1)'s. */
  static final int ERROR_WHEN_GATED = 2;

  @Spec CommandSpec command;
  @Mixin RemoteOptions remote;
  @Mixin SyncOutput output;
  @Mixin DvcOptions dvc;

  @Parameters(index = "0", paramLabel = "FOLDER", description = "The versioned folder.")
  Path folder;

  @Option(names = "--ref", defaultValue = "latest", paramLabel = "NAME",
      description = "The version to compare with (default: ${DEFAULT-VALUE}).")
  String ref;

  @Option(names = "--exit-code", description = "Exit 1 when there is a difference, as git diff --exit-code does, and 2 on an error.")
  boolean exitCode;

  @Option(names = {"-q", "--quiet"}, description = "Print nothing, not even progress; exit 1 when there is a"
      + " difference, as dvc status -q does, and 2 on an error.")
  boolean quiet;

  @Override
  public int errorExitCode() {
    return exitCode || quiet ? ERROR_WHEN_GATED : 1;
  }

  @Override
  public Integer call() throws Exception {
    PrintStream log = quiet ? new PrintStream(OutputStream.nullOutputStream()) : ProgressLog.to(
        command.commandLine().getErr());
    dvc.applyTo(remote, command, "--ref");
    SyncResult result;
    try (ObjectStores stores = remote.stores(folder);
        SyncSession session = remote.session(stores, folder, log)) {
      result = dvc.given() ? DvcStatus.run(session, dvc.remote(session, "compare with")) : StatusCheck.run(session, ref);
    }
    if (!quiet || output.resultFile != null) {
      output.print(quiet ? new PrintWriter(OutputStream.nullOutputStream()) : command.commandLine().getOut(), result);
    }
    return (exitCode || quiet) && result.differs() ? DIFFERS : 0;
  }
}
