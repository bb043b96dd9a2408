package dev.quarry.cli.sort;

import dev.quarry.core.json.Json;
import dev.quarry.core.store.Location;
import dev.quarry.core.sort.ScratchCleaning;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.units.ByteSize;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code quarry sort clean}: deletes a job's intermediate data, what the operator runs when a job ends. */
@Command(name = "clean", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Deletes a job's scratch: under --scratch, only the objects the phases write (runs, packs, plans,"
        + " results), then its .quarry-scratch.json marker; anything else there stays. A prefix without the marker"
        + " is refused: it is not a sort's scratch. The output shards and the manifest are not under it and stay."
        + " Idempotent.", ""})
public final class SortCleanCommand implements Callable<Integer> {
  @Spec CommandSpec command;

  @Option(names = "--scratch", required = true, paramLabel = "URL",
      description = "The scratch prefix, for example s3://bucket/.quarry-scratch/my-job/")
  String scratch;

  @Option(names = "--json", description = "Print the result as JSON on stdout instead of a summary.")
  boolean json;

  @Option(names = "--result", paramLabel = "FILE", description = "Also write the result as JSON to FILE.")
  Path resultFile;

  /** What was deleted, and how many objects the sort did not write were left. */
  record CleanResult(String scratch, long objects, long bytes, long kept) {}

  @Override
  public Integer call() throws Exception {
    String prefix = scratch.endsWith("/") ? scratch : scratch + "/";
    try (ObjectStores stores = new ObjectStores(S3Settings.fromEnvironment())) {
      Location location = stores.locate(prefix);
      if (location.key().isEmpty() || location.key().equals("/")) {
        throw new IllegalArgumentException("Invalid --scratch: " + scratch + " (must be a folder inside the bucket,"
            + " never the whole bucket)");
      }
      ScratchCleaning.Cleaned cleaned = ScratchCleaning.clean(location);
      CleanResult result = new CleanResult(prefix, cleaned.objects(), cleaned.bytes(), cleaned.kept());
      String text = Json.write(result);
      if (resultFile != null) {
        Files.writeString(resultFile, Json.writeCompact(result));
      }
      command.commandLine().getOut().println(json ? text
          : "Deleted " + result.objects() + " objects (" + ByteSize.format(result.bytes()) + ") under " + prefix
              + (result.kept() > 0 ? "; kept " + result.kept() + " objects the sort does not write" : ""));
      command.commandLine().getOut().flush();
    }
    return 0;
  }
}
