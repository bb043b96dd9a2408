package dev.quarry.cli.sort;

import dev.quarry.core.json.Json;
import dev.quarry.core.sort.ScratchCleaning;
import dev.quarry.core.sort.ScratchMarker;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.units.ByteSize;
import dev.quarry.core.units.Counted;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code quarry sort clean}: deletes a job's intermediate data, what the operator runs when a job ends. */
@Command(name = "clean", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Deletes a job's scratch: under its scratch prefix, only the objects the phases write (runs, packs,"
        + " plans, results), then its .quarry-scratch.json marker; anything else there stays. The job is given as"
        + " to the phases (--spec or the options) or by --job; a prefix without the marker, or marked for another"
        + " job, is refused. The output shards and the manifest are not under it and stay. Idempotent.", ""})
public final class SortCleanCommand implements Callable<Integer> {
  @Spec CommandSpec command;

  @Mixin SortSpecOptions job;

  @Option(names = "--job", paramLabel = "DIGEST", description = "The job's digest (the job field of the scratch's"
      + " .quarry-scratch.json), instead of --spec or the job's options; --scratch then names the prefix.")
  String digest;

  @Option(names = "--json", description = "Print the result as JSON on stdout instead of a summary.")
  boolean json;

  @Option(names = "--result", paramLabel = "FILE", description = "Also write the result as JSON to FILE.")
  Path resultFile;

  /**
   * What was deleted, how many objects the sort did not write were left, how many unfinished uploads were given up,
   * and why they were not when the store refused (else absent).
   */
  record CleanResult(String scratch, long objects, long bytes, long kept, long uploads, String uploadsLeft) {}

  @Override
  public Integer call() throws Exception {
    ScratchMarker owner;
    String scratch;
    S3Settings settings;
    if (digest != null) {
      if (!digest.matches("[0-9a-f]{64}")) {
        throw new IllegalArgumentException("Invalid --job: " + digest + " (must be the 64 hex digits"
            + " of a scratch marker's job)");
      }
      owner = new ScratchMarker(ScratchMarker.FORMAT, digest);
      scratch = job.scratch;
      settings = S3Settings.fromEnvironment();
    } else {
      SortSpec spec = job.spec();
      owner = ScratchMarker.of(spec);
      scratch = spec.scratch();
      settings = job.s3Settings(S3Settings.fromEnvironment());
    }
    if (scratch == null) {
      throw new IllegalArgumentException("Missing --scratch (or scratch in the --spec file): the prefix to clean,"
          + " for example s3://bucket/.quarry-scratch/my-job/");
    }
    String prefix = scratch.endsWith("/") ? scratch : scratch + "/";
    try (ObjectStores stores = new ObjectStores(settings)) {
      Location location = stores.locate(prefix);
      if (location.key().isEmpty() || location.key().equals("/")) {
        throw new IllegalArgumentException("Invalid --scratch: " + scratch + " (must be a folder inside the bucket,"
            + " never the whole bucket)");
      }
      ScratchCleaning.Cleaned cleaned = ScratchCleaning.clean(location, owner);
      CleanResult result = new CleanResult(prefix, cleaned.objects(), cleaned.bytes(), cleaned.kept(),
          cleaned.uploads(), cleaned.uploadsLeft());
      String text = Json.write(result);
      if (resultFile != null) {
        Files.writeString(resultFile, Json.writeCompact(result));
      }
      command.commandLine().getOut().println(json ? text
          : "Deleted " + Counted.of(result.objects(), "object") + " (" + ByteSize.format(result.bytes()) + ") under "
              + prefix + (result.uploads() > 0 ? "; gave up " + Counted.of(result.uploads(), "unfinished upload")
                  : "") + (result.kept() > 0 ? "; kept " + Counted.of(result.kept(), "object")
                  + " the sort does not write" : "") + (result.uploadsLeft() != null ? "; warning: left any"
                  + " unfinished uploads under it to the bucket's lifecycle rule (" + result.uploadsLeft() + ")"
                  : ""));
      command.commandLine().getOut().flush();
    }
    return 0;
  }
}
