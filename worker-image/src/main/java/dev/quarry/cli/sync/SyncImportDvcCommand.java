package dev.quarry.cli.sync;

import dev.quarry.cli.output.ProgressLog;
import dev.quarry.core.json.Json;
import dev.quarry.core.fs.WorkFolder;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.dvc.DvcFile;
import dev.quarry.core.sync.dvc.DvcHash;
import dev.quarry.core.sync.dvc.DvcImport;
import dev.quarry.core.sync.push.Push;
import dev.quarry.core.units.ByteSize;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code quarry sync import-dvc}. */
@Command(
    name = "import-dvc",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {"Turns a folder (or file) that DVC 3 pushed to its remote into a Quarry version and points a ref"
        + " at it, so a team switches without re-uploading from a workstation. Each distinct file is streamed once"
        + " from the DVC remote (files/md5/xx/...), verified by its MD5, hashed with SHA-256 on the way, and uploaded"
        + " unless the Quarry remote holds it already. Paths in the .dir listing are checked (no .., no absolute"
        + " paths), and reads are bounded by the sizes the .dvc file declares. Both remotes use the same S3"
        + " connection (see sync --help).", ""},
    footer = {"", "Examples:",
        "  quarry sync import-dvc data.dvc --dvc-remote s3://ml/dvcstore --remote s3://datasets/cas/coco --ref v1",
        "  quarry sync import-dvc --md5 27c583ddd391c31680b3aeb16d0c8816.dir --dvc-remote /mnt/dvcstore \\",
        "      --remote s3://datasets/cas/coco"})
public final class SyncImportDvcCommand implements Callable<Integer> {
  @Spec CommandSpec command;
  @Mixin RemoteOptions remote;

  /** Exactly one: the .dvc file, or the md5 it names. */
  static final class Source {
    @Parameters(index = "0", paramLabel = "FILE.dvc", description = "The .dvc file of the folder or file.")
    Path dvcFile;

    @Option(names = "--md5", paramLabel = "MD5[.dir]", description = "The md5 of the folder's .dir listing instead"
        + " of a .dvc file (sizes then come from a HEAD of each object).")
    String md5;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  @Option(names = "--dvc-remote", required = true, paramLabel = "URL",
      description = "The DVC remote's root (its url in .dvc/config): s3://bucket/prefix, file:///path or a path.")
  String dvcRemote;

  @Option(names = "--ref", defaultValue = "latest", paramLabel = "NAME",
      description = "The ref to point at the imported version (default: ${DEFAULT-VALUE}).")
  String ref;

  @Option(names = "--by", paramLabel = "NAME",
      description = "Who imports, as the ref log records it (default: user@host).")
  String by;

  @Option(names = "--json", description = "Print the result as JSON.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    DvcFile dvc = source.dvcFile != null ? DvcFile.read(source.dvcFile)
        : new DvcFile(DvcHash.parse(source.md5), -1, -1, null);
    try (WorkFolder work = WorkFolder.create(Path.of(System.getProperty("java.io.tmpdir")), "quarry-import-dvc-")) {
      return importInto(dvc, work.path()); // the folder goes at Ctrl-C or SIGTERM too
    }
  }

  private int importInto(DvcFile dvc, Path temp) throws Exception {
    boolean temporaryState = remote.stateDir == null;
    remote.stateDir = temporaryState ? temp.resolve("state") : remote.stateDir;
    try (ObjectStores stores = remote.stores(Path.of(""));
        SyncSession session = remote.session(stores, temp, ProgressLog.to(command.commandLine().getErr()))) {
      Location dvcLocation = stores.locate(dvcRemote);
      DvcImport.Result result = DvcImport.run(dvcLocation.store(), dvcLocation.key(), session, dvc, ref,
          by != null ? by : Push.defaultAuthor());
      PrintWriter out = command.commandLine().getOut();
      if (json) {
        out.println(Json.write(result));
      } else {
        out.printf(Locale.ROOT, "import-dvc %s -> %s %s: %d files, %s; %d blobs copied (%s), %d reused%n",
            result.source(), ref, result.version(), result.files(), ByteSize.format(result.bytes()),
            result.copiedBlobs(), ByteSize.format(result.copiedBytes()), result.reusedBlobs());
        out.printf(Locale.ROOT, "  requests: DVC remote %d GET, %d HEAD; Quarry remote %d HEAD, %d GET, %d PUT in %.1f"
            + " s%n", result.dvcRequests().get(), result.dvcRequests().head(), result.quarryRequests().head(),
            result.quarryRequests().get(), result.quarryRequests().put(), result.elapsedSeconds());
      }
      out.flush();
    }
    return 0;
  }
}
