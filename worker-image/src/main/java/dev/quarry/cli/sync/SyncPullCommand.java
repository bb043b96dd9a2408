package dev.quarry.cli.sync;

import dev.quarry.cli.options.HelpOption;
import dev.quarry.cli.output.ProgressLog;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.dvc.DvcPull;
import dev.quarry.core.sync.pull.Pull;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code quarry sync pull}. */
@Command(
    name = "pull",
    sortOptions = false,
    description = {"Writes a version into the folder, whole or only the paths the include patterns select. Every"
        + " byte is verified against its digest before a file appears (by atomic rename). The remote is trusted for"
        + " nothing: the selected tree is checked whole first, nothing is written through a symbolic link, and a"
        + " local file edited since it was last pulled or pushed is replaced only with --force.",
        "With --dvc FILE.dvc --dvc-remote URL, writes the version a DVC 3 .dvc file names, read straight from its"
        + " DVC remote (files/md5/xx/..., .dir listings), by the same rules: files already in the folder are matched"
        + " by MD5, the pull's refusals (local edits, paths in the way) are checked before any content is read,"
        + " every other content is read bounded by the .dvc file's size (a .dvc file without one is refused) and"
        + " verified by its MD5 before it is renamed into place, and the listing's paths are checked (no .., no"
        + " absolute or repeated paths). Contents verified by a pull that failed are kept in the state folder"
        + " (dvc-contents/) for the next one. --delete-extra is refused for a .dvc file of one file, and never deletes"
        + " what DVC ignores (the .dvcignore files from the DVC project's top down to the folder, and .git, .hg,"
        + " .dvc).", ""},
    footer = {"", "Examples:", "  quarry sync pull /scratch/coco --remote s3://datasets/cas/coco --version latest \\",
        "      --include 'val2017/**' --cache /scratch/.quarry-cache",
        "  quarry sync pull data --dvc data.dvc --dvc-remote s3://ml/dvcstore"})
public final class SyncPullCommand implements Callable<Integer> {
  @Spec CommandSpec command;
  /** Help only: --version selects the version to pull here. */
  @Mixin HelpOption help;
  @Mixin RemoteOptions remote;
  @Mixin SyncOutput output;
  @Mixin DvcOptions dvc;

  @Parameters(index = "0", paramLabel = "FOLDER", description = "The folder to write into (created if missing).")
  Path folder;

  @Option(names = "--version", defaultValue = "latest", paramLabel = "REF|DIGEST",
      description = "A ref name or a root digest sha256:... (default: ${DEFAULT-VALUE}).")
  String version;

  @Option(names = "--include", paramLabel = "GLOB", description = "Pull only matching paths (repeatable); * stays"
      + " in a folder, ** crosses folders: 'images/**/*.jpg'. Only the manifests a pattern can reach are read; in a"
      + " large folder, only the chunks of the names starting with the pattern's text before its first wildcard.")
  List<String> include = new ArrayList<>();

  @Option(names = "--delete-extra", description = "Delete files in the folder (within the included paths) that are"
      + " not in the version, as a walk before the downloads found them (never what appears or is edited during"
      + " them: a folder that fills is kept); a local edit or a file never synced is deleted only with --force.")
  boolean deleteExtra;

  @Option(names = "--cache", paramLabel = "DIR", description = "A local blob cache (private, 0700): read-only"
      + " (0444) files become hard links to it when it is on the same filesystem, others copies, and blobs in it are"
      + " never downloaded again; not inside FOLDER, unless in its state folder.")
  Path cache;

  @Option(names = "--force", description = "Replace local files whose content is neither the new version's nor the"
      + " one last pulled or pushed (local edits), by a file, a link or --delete-extra; without it the pull refuses"
      + " and names them.")
  boolean force;

  @Override
  public Integer call() throws Exception {
    dvc.applyTo(remote, command, "--version");
    try (ObjectStores stores = remote.stores(folder);
        SyncSession session = remote.session(stores, folder, ProgressLog.to(command.commandLine().getErr()))) {
      Pull.Options options = new Pull.Options(version, include, deleteExtra, cache, force);
      output.print(command.commandLine().getOut(), dvc.given() ? DvcPull.run(session, dvc.remote(session, "pull"),
          options) : Pull.run(session, options));
    }
    return 0;
  }
}
