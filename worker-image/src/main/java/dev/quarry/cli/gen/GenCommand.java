package dev.quarry.cli.gen;

import dev.quarry.cli.options.ShardFormatConverter;
import dev.quarry.cli.output.ProgressLog;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.gen.DatasetGenerator;
import dev.quarry.core.gen.DatasetSpec;
import dev.quarry.core.gen.GeneratedShard;
import dev.quarry.core.json.Json;
import dev.quarry.core.progress.ProgressLine;
import dev.quarry.core.progress.ProgressPrinter;
import dev.quarry.core.units.ByteSize;
import dev.quarry.core.units.Counted;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code quarry gen}: writes a synthetic dataset for tests, benchmarks and demos. */
@Command(
    name = "gen",
    mixinStandardHelpOptions = true,
    description = {
      "Writes a synthetic dataset of archive shards into a local folder.",
      "Each record has an image-sized member <key>.jpg of random bytes and a label member <key>.cls holding a class"
          + " number. The same options and seed give the same bytes.",
      ""
    },
    footer = {"", "Example:", "  quarry gen --out /tmp/dataset --shards 16 --records 1000 --image-size 100Ki"})
public final class GenCommand implements Callable<Integer> {
  @Spec CommandSpec command;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder to write the shards into.")
  Path out;

  @Option(names = "--shards", defaultValue = "8", description = "Number of shards (default: ${DEFAULT-VALUE}).")
  int shards;

  @Option(names = "--records", defaultValue = "1000", description = "Records per shard (default: ${DEFAULT-VALUE}).")
  int records;

  @Option(names = "--image-size", defaultValue = "100Ki", paramLabel = "BYTES",
      description = "Mean size of each image member, as a quantity (default: ${DEFAULT-VALUE}).")
  String imageSize;

  @Option(names = "--size-jitter", defaultValue = "25", paramLabel = "PERCENT",
      description = "Image sizes vary by up to this percentage around the mean (default: ${DEFAULT-VALUE}).")
  int sizeJitter;

  @Option(names = "--classes", defaultValue = "1000", description = "Number of label classes (default: ${DEFAULT-VALUE}).")
  int classes;

  @Option(names = "--prefix", defaultValue = "train", description = "Shard name prefix (default: ${DEFAULT-VALUE}).")
  String prefix;

  @Option(names = "--format", defaultValue = "tar", description = "Shard format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).",
      converter = ShardFormatConverter.class, completionCandidates = ShardFormatConverter.Candidates.class)
  ShardFormat format;

  @Option(names = "--seed", defaultValue = "1", description = "Seed of the random bytes (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--threads", description = "Shards written at once (default: the number of processors).")
  Integer threads;

  @Option(names = "--json", description = "Print the result as JSON on stdout instead of a summary.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    long imageBytes = ByteSize.parse(imageSize);
    if (imageBytes > Integer.MAX_VALUE - 1024) {
      throw new IllegalArgumentException("Invalid image size: " + imageSize + " (must be under 2Gi)");
    }
    DatasetSpec spec = new DatasetSpec(prefix, shards, records, (int) imageBytes, sizeJitter, classes, format, seed);
    ProgressPrinter progress = new ProgressPrinter(ProgressLog.to(command.commandLine().getErr()), true);
    AtomicInteger done = new AtomicInteger();
    AtomicLong bytes = new AtomicLong();
    long start = System.nanoTime();
    List<GeneratedShard> written = new DatasetGenerator(spec).writeTo(out, threads(), shard -> {
      synchronized (progress) { // counted and printed together, so the last shard's line is printed last
        int count = done.incrementAndGet();
        long total = bytes.addAndGet(shard.bytes());
        if (count == shards || progress.due()) {
          progress.print(new ProgressLine("gen", count, shards, "shard", null, total, -1,
              (System.nanoTime() - start) / 1e9), count == shards);
        }
      }
    });
    double seconds = (System.nanoTime() - start) / 1e9;
    GenResult result = GenResult.of(out, written, seconds);
    PrintWriter stdout = command.commandLine().getOut();
    if (json) {
      stdout.println(Json.write(result));
    } else {
      stdout.printf(Locale.ROOT, "Wrote %s, %s, %s into %s in %.1f s (%s/s)%n",
          Counted.of(result.shards(), "shard"), Counted.of(result.records(), "record"),
          ByteSize.format(result.bytes()), out, seconds, ByteSize.format((long) (result.bytes() / Math.max(seconds,
              1e-9))));
    }
    stdout.flush();
    return 0;
  }

  private int threads() {
    return threads != null ? threads : Runtime.getRuntime().availableProcessors();
  }
}
