package dev.quarry.cli.sort;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.json.Json;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.units.ByteSize;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code quarry sort clean}: deletes a job's intermediate data, what the operator runs when a job ends. */
@Command(name = "clean", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Deletes every object under --scratch: the runs, packs, plans and results the phases kept there."
        + " The output shards and the manifest are not under it and stay. Idempotent.", ""})
public final class SortCleanCommand implements Callable<Integer> {
  private static final int DELETES_IN_FLIGHT = 64;

  @Spec CommandSpec command;

  @Option(names = "--scratch", required = true, paramLabel = "URL",
      description = "The scratch prefix, for example s3://bucket/.quarry-scratch/my-job/")
  String scratch;

  @Option(names = "--json", description = "Print the result as JSON on stdout instead of a summary.")
  boolean json;

  @Option(names = "--result", paramLabel = "FILE", description = "Also write the result as JSON to FILE.")
  Path resultFile;

  /** What was deleted. */
  record CleanResult(String scratch, long objects, long bytes) {}

  @Override
  public Integer call() throws Exception {
    String prefix = scratch.endsWith("/") ? scratch : scratch + "/";
    try (ObjectStores stores = new ObjectStores(S3Settings.fromEnvironment())) {
      Location location = stores.locate(prefix);
      if (location.key().isEmpty() || location.key().equals("/")) {
        throw new IllegalArgumentException("Invalid --scratch: " + scratch + " (must be a folder inside the bucket,"
            + " never the whole bucket)");
      }
      List<ObjectInfo> objects;
      try (var listing = location.store().listAll(location.key())) {
        objects = listing.toList();
      }
      InFlight.all(objects, DELETES_IN_FLIGHT, object -> location.store().delete(object.key()));
      CleanResult result = new CleanResult(prefix, objects.size(),
          objects.stream().mapToLong(ObjectInfo::size).sum());
      String text = Json.write(result);
      if (resultFile != null) {
        Files.writeString(resultFile, Json.writeCompact(result));
      }
      command.commandLine().getOut().println(json ? text
          : "Deleted " + result.objects() + " objects (" + ByteSize.format(result.bytes()) + ") under " + prefix);
      command.commandLine().getOut().flush();
    }
    return 0;
  }
}
