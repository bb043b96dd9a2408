package dev.quarry.cli.sync;

import dev.quarry.core.json.Json;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.core.sync.remote.VersionListing;
import dev.quarry.core.units.ByteSize;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code quarry sync ls}. */
@Command(
    name = "ls",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {"Lists a folder of a version on the remote without pulling it: each entry's type, mode, size and"
        + " path (a folder's size is its subtree's). Reads only the manifests on the path (and with -R those under"
        + " it), never a file's content.", ""},
    footer = {"", "Example:", "  quarry sync ls latest val2017 --remote s3://datasets/cas/coco"})
public final class SyncLsCommand implements Callable<Integer> {
  @Spec CommandSpec command;
  @Mixin RemoteOptions remote;

  @Parameters(index = "0", paramLabel = "VERSION", description = "A ref name or a root digest sha256:...")
  String version;

  @Parameters(index = "1", arity = "0..1", defaultValue = "", paramLabel = "PATH",
      description = "A folder or file of the version (default: its root).")
  String path;

  @Option(names = {"-R", "--recursive"}, description = "List the whole subtree, not only the folder's entries.")
  boolean recursive;

  @Option(names = "--json", description = "Print the entries as a JSON array (path, type, mode, size, files,"
      + " digest, target).")
  boolean json;

  @Override
  public Integer call() throws Exception {
    try (ObjectStores stores = remote.stores(Path.of(""))) {
      CasRemote cas = remote.casRemote(stores);
      VersionListing.Result listing = VersionListing.list(cas, cas.resolveRoot(version), version, path, recursive);
      PrintWriter out = command.commandLine().getOut();
      if (json) {
        out.println(Json.write(listing.items()));
      } else {
        for (VersionListing.Item item : listing.items()) {
          out.printf(Locale.ROOT, "%-7s %s %10s  %s%s%n", item.type(), item.mode(), ByteSize.format(item.size()),
              TreeEntry.printable(item.path()), item.type().equals("dir") ? "/"
                  : item.target() != null ? " -> " + TreeEntry.printable(item.target()) : "");
        }
      }
      out.flush();
    }
    return 0;
  }
}
