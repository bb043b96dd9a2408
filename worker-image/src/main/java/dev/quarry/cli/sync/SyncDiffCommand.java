package dev.quarry.cli.sync;

import dev.quarry.cli.output.ProgressLog;
import dev.quarry.core.json.Json;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.cas.TreeObject;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.local.LocalTree;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.core.sync.remote.TreeDiff;
import dev.quarry.core.units.ByteSize;
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

/** {@code quarry sync diff}. */
@Command(
    name = "diff",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {"Shows what changed from version A to version B, or from version A to a folder: paths added (A),"
        + " deleted (D), modified (M), and renamed (R, a deleted file whose content is added at another path). Reads"
        + " only the manifests of folders that differ, never a file's content; a folder is scanned as status scans"
        + " it.", ""},
    footer = {"", "Examples:", "  quarry sync diff v1 latest --remote s3://datasets/cas/coco",
        "  quarry sync diff latest --folder /data/coco --remote s3://datasets/cas/coco --json"})
public final class SyncDiffCommand implements Callable<Integer> {
  @Spec CommandSpec command;
  @Mixin RemoteOptions remote;

  @Parameters(index = "0", paramLabel = "A", description = "The older version: a ref name or a root digest sha256:...")
  String before;

  @Parameters(index = "1", arity = "0..1", paramLabel = "B", description = "The newer version (or --folder).")
  String after;

  @Option(names = "--folder", paramLabel = "DIR", description = "Compare A with this folder instead of a version.")
  Path folder;

  @Option(names = "--json", description = "Print the changes as JSON.")
  boolean json;

  /** The diff as --json prints it. */
  record Report(String before, String after, long added, long deleted, long modified, long renamed,
      long manifestsRead, List<TreeDiff.Change> changes) {}

  @Override
  public Integer call() throws Exception {
    if ((after == null) == (folder == null)) {
      throw new IllegalArgumentException("Invalid diff: " + (after == null ? "no B" : "both B and --folder")
          + " (must name a second version B or a folder with --folder, one of them)");
    }
    try (ObjectStores stores = remote.stores(folder == null ? Path.of("") : folder)) {
      CasRemote cas = remote.casRemote(stores);
      TreeObject a = cas.resolveRoot(before);
      TreeDiff.Result result;
      String afterName;
      if (folder != null) {
        try (SyncSession session = remote.session(stores, folder, ProgressLog.to(command.commandLine().getErr()))) {
          LocalTree tree = session.scan("diff");
          result = TreeDiff.compare(TreeDiff.Trees.of(cas), a, TreeDiff.Trees.of(tree.manifests()),
              tree.top().manifest().top());
        }
        afterName = folder.toString();
      } else {
        result = TreeDiff.compare(TreeDiff.Trees.of(cas), a, TreeDiff.Trees.of(cas), cas.resolveRoot(after));
        afterName = after;
      }
      print(afterName, result);
    }
    return 0;
  }

  private void print(String afterName, TreeDiff.Result result) {
    PrintWriter out = command.commandLine().getOut();
    long added = result.count(TreeDiff.Kind.ADDED);
    long deleted = result.count(TreeDiff.Kind.DELETED);
    long modified = result.count(TreeDiff.Kind.MODIFIED);
    long renamed = result.count(TreeDiff.Kind.RENAMED);
    if (json) {
      out.println(Json.write(new Report(before, afterName, added, deleted, modified, renamed, result.manifestsRead(),
          result.changes())));
    } else {
      for (TreeDiff.Change change : result.changes()) {
        String path = TreeEntry.printable(change.path());
        out.printf(Locale.ROOT, "%s  %s%s%n", change.kind().name().charAt(0),
            change.kind() == TreeDiff.Kind.RENAMED ? TreeEntry.printable(change.from()) + " -> " : "",
            change.kind() == TreeDiff.Kind.DELETED ? path : path + "  (" + ByteSize.format(change.size()) + ")");
      }
      out.printf(Locale.ROOT, "%s -> %s: %d added, %d deleted, %d modified, %d renamed (%d manifests read)%n", before,
          afterName, added, deleted, modified, renamed, result.manifestsRead());
    }
    out.flush();
  }
}
