package dev.quarry.cli.sync;

import dev.quarry.cli.output.ProgressLog;
import dev.quarry.cli.output.StandardOutput;
import dev.quarry.core.fs.WorkFolder;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.pull.Get;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code quarry sync get}. */
@Command(
    name = "get",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {"Writes one file or one folder of a version, without the rest: reads only the manifests on the"
        + " path and the blobs under it. A file goes to standard output when OUT is omitted or -, else to OUT (or"
        + " into OUT when it is a folder); a folder goes into OUT (default: a folder of its name here), as sync pull"
        + " writes it. Every byte is verified against its digest; files appear by atomic rename (on standard output,"
        + " corruption is reported by the exit code, after the bytes). When the reader of standard output goes away"
        + " (| head), the download stops and the exit code is 141, quietly, as for cat.", ""},
    footer = {"", "Examples:", "  quarry sync get latest labels/train.csv --remote s3://datasets/cas/coco | head",
        "  quarry sync get v3 val2017 /scratch/val2017 --remote s3://datasets/cas/coco"})
public final class SyncGetCommand implements Callable<Integer> {
  @Spec CommandSpec command;
  @Mixin RemoteOptions remote;

  @Parameters(index = "0", paramLabel = "VERSION", description = "A ref name or a root digest sha256:...")
  String version;

  @Parameters(index = "1", paramLabel = "PATH", description = "The file or folder of the version.")
  String path;

  @Parameters(index = "2", arity = "0..1", paramLabel = "OUT", description = "Where to write it (see above).")
  String out;

  @Option(names = "--force", description = "Replace files in OUT that differ from the version (for a folder; a"
      + " file at OUT is always replaced).")
  boolean force;

  /** Where a file goes when OUT is omitted or -: the process's standard output, as bytes, its errors reported. */
  OutputStream stdout = new StandardOutput();

  @Override
  public Integer call() throws Exception {
    try (ObjectStores stores = remote.stores(Path.of(""))) {
      CasRemote cas = remote.casRemote(stores);
      Get.Target target = Get.find(cas, version, path);
      PrintStream log = ProgressLog.to(command.commandLine().getErr());
      if (!target.isFolder()) {
        if (out == null || out.equals("-")) {
          try {
            Get.toStream(cas, target, stdout);
            stdout.flush();
          } catch (StandardOutput.WriteFailed e) {
            if (e.brokenPipe()) {
              return StandardOutput.BROKEN_PIPE; // the reader went away (| head): quiet, as cat
            }
            throw e;
          }
        } else {
          if (out.endsWith("/") && !Files.isDirectory(Path.of(out))) {
            throw new IllegalArgumentException("Cannot write into " + out + ": no such folder (create it first, or"
                + " name a file)");
          }
          log.println("get: wrote " + Get.toFile(cas, target, Path.of(out)));
        }
        return 0;
      }
      if (out == null && target.path().path().isEmpty()) {
        throw new IllegalArgumentException("Cannot get the whole of " + version + " without OUT: name a folder to"
            + " write it into (or use sync pull)");
      }
      if (out != null && out.equals("-")) {
        throw new IllegalArgumentException("Cannot get " + path + " to standard output: it is a folder");
      }
      Path folder = Path.of(out != null ? out : target.path().name());
      if (remote.stateDir != null) {
        try (SyncSession session = remote.session(stores, folder, log)) {
          Get.folder(session, target, force);
        }
      } else {
        try (WorkFolder state = WorkFolder.create(Path.of(System.getProperty("java.io.tmpdir")), "quarry-get-")) {
          remote.stateDir = state.path(); // it goes at Ctrl-C or SIGTERM too
          try (SyncSession session = remote.session(stores, folder, log)) {
            Get.folder(session, target, force);
          }
        }
      }
      log.println("get: wrote " + folder.toAbsolutePath().normalize());
    }
    return 0;
  }
}
