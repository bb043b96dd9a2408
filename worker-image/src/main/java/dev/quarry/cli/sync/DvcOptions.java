package dev.quarry.cli.sync;

import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.dvc.DvcFile;
import dev.quarry.core.sync.dvc.DvcRemote;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The DVC forms of status and pull: the version a DVC 3 {@code .dvc} file names, read straight from its DVC remote,
 * in place of a Quarry version. The DVC remote takes the place of {@code --remote} (found the same way: a URL, or a
 * name from the config files), so the session's store is the DVC remote's.
 */
final class DvcOptions {
  @Option(names = "--dvc", paramLabel = "FILE.dvc", description = "Use the version this DVC 3 .dvc file names,"
      + " read straight from its DVC remote (--dvc-remote), instead of a Quarry version: for a team switching from"
      + " DVC without uploading its data again.")
  Path dvcFile;

  @Option(names = "--dvc-remote", paramLabel = "URL|NAME", description = "With --dvc: the DVC remote's root (its"
      + " url in .dvc/config): s3://bucket/prefix, file:///path or a path with a '/', or a remote's name from quarry"
      + " remote list (for its endpoint and profile).")
  String dvcRemote;

  boolean given() {
    return dvcFile != null;
  }

  /**
   * Checks that the options go together and, with --dvc, points {@code remote} at the DVC remote. {@code version}:
   * the command's option naming a Quarry version, which the .dvc file replaces.
   */
  void applyTo(RemoteOptions remote, CommandSpec command, String version) {
    if (dvcFile == null) {
      if (dvcRemote != null) {
        throw new IllegalArgumentException("Invalid --dvc-remote " + dvcRemote + " (must come with --dvc"
            + " FILE.dvc, the version to read from it)");
      }
      return;
    }
    if (dvcRemote == null) {
      throw new IllegalArgumentException("Invalid --dvc " + dvcFile + " (must come with --dvc-remote, the DVC"
          + " remote's url in .dvc/config)");
    }
    if (remote.remoteArgument != null) {
      throw new IllegalArgumentException("Invalid --remote with --dvc: " + remote.remoteArgument + " (must be left"
          + " out: the version and its data come from --dvc-remote)");
    }
    if (command.commandLine().getParseResult().hasMatchedOption(version)) {
      throw new IllegalArgumentException("Invalid " + version + " with --dvc (must be left out: the .dvc file names"
          + " the version)");
    }
    remote.remoteArgument = dvcRemote;
  }

  /** The DVC remote of a session opened by {@link #applyTo}'s remote options; {@code action} for messages. */
  DvcRemote remote(SyncSession session, String action) throws IOException {
    return new DvcRemote(session.remote().store(), session.remote().layout().prefix(), DvcFile.read(dvcFile),
        action);
  }
}
