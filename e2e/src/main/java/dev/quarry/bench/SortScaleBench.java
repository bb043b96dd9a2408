package dev.quarry.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quarry.testkit.MinioServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * How the phases' store traffic grows with the number of workers: for each record size, order and worker count W,
 * a sort of the same generated dataset on a local MinIO with W extract workers, W partitions (partition steps) and W
 * create workers, each index its own {@code quarry} process as in worker pods (at most {@value #AT_ONCE} at once).
 * Prints, from MinIO's own counters, the bytes it sent (reads) and received (writes) per input byte and the requests
 * per GiB of input, and from the phase results the most records one process ordered against N/W. Counts, not
 * timings. Usage: SortScaleBench QUARRY_LAUNCHER WORKDIR MIB_PER_DATASET RECORD_SIZES WORKER_COUNTS [ORDERS]
 */
public final class SortScaleBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Processes run at once (QUARRY_BENCH_AT_ONCE): the machine's cores are few, and each process is a JVM. */
  private static final int AT_ONCE = Integer.parseInt(System.getenv().getOrDefault("QUARRY_BENCH_AT_ONCE", "4"));
  /**
   * Each process's memory budget (QUARRY_BENCH_BUDGET, default 256Mi): a small one makes extract workers spill their
   * entries several times, as workers of terabytes of small records do at the default.
   */
  private static final String BUDGET = System.getenv().getOrDefault("QUARRY_BENCH_BUDGET", "256Mi");
  /** The fewest input shards; more when there are more workers, so that every extract worker has a shard. */
  private static final int MIN_INPUT_SHARDS = 16;

  public static void main(String[] args) throws Exception {
    Path launcher = Path.of(args[0]);
    Path work = Files.createDirectories(Path.of(args[1]));
    long datasetBytes = Long.parseLong(args[2]) << 20;
    List<String> recordSizes = List.of(args[3].split(","));
    List<Integer> workerCounts = java.util.Arrays.stream(args[4].split(",")).map(Integer::valueOf).toList();
    List<String> orders = List.of((args.length > 5 ? args[5] : "shuffle,alphanumeric").split(","));
    // QUARRY_BENCH_INPUT_SHARDS: more shards (and twice as many output shards) than the workers need, so that a create
    // worker's shards take several batches of 64.
    int inputShards = Math.max(Integer.parseInt(System.getenv().getOrDefault("QUARRY_BENCH_INPUT_SHARDS", "0")),
        Math.max(MIN_INPUT_SHARDS, workerCounts.stream().mapToInt(Integer::intValue).max().orElse(1)));
    int outputShards = 2 * inputShards;
    System.out.printf(Locale.ROOT, "%d input shards, %d output shards, %d processes at once, a budget of %s%n",
        inputShards, outputShards, AT_ONCE, BUDGET);
    try (MinioServer minio = MinioServer.start(); S3Client s3 = minio.client()) {
      String bucket = minio.createBucket("scale");
      Map<String, String> environment = Map.of("QUARRY_S3_ENDPOINT", minio.endpoint().toString(),
          "AWS_ACCESS_KEY_ID", minio.accessKey(), "AWS_SECRET_ACCESS_KEY", minio.secretKey());
      SortBench.Quarry quarry = new SortBench.Quarry(launcher, work, environment);
      quarry.heapMib = 512;
      System.out.printf(Locale.ROOT, "%-8s %-13s %4s %9s %10s %10s %12s %12s %8s %12s%n", "record", "order", "W",
          "records", "read/in", "write/in", "requests/GiB", "most ordered", "x N/W", "extract runs");
      for (String recordSize : recordSizes) {
        long size = parseSize(recordSize);
        long records = Math.max(inputShards, datasetBytes / size);
        int perShard = (int) (records / inputShards);
        Path local = work.resolve("in-" + recordSize);
        quarry.run("gen", "--out", local.toString(), "--shards", "" + inputShards, "--records", "" + perShard,
            "--image-size", recordSize);
        SortBench.clear(minio, bucket, "in/");
        long inputBytes = SortBench.upload(s3, bucket, local);
        long total = (long) inputShards * perShard;
        for (String order : orders) {
          for (int workers : workerCounts) {
            String spec = spec(work, bucket, order, inputShards, Math.max(1, inputBytes / outputShards));
            long read = minio.bytesSent();
            long written = minio.s3Metric("minio_api_requests_traffic_received_bytes");
            long requests = minio.s3Metric("minio_api_requests_total");
            long[] counts = run(quarry, spec, workers);
            long mostOrdered = counts[0];
            read = minio.bytesSent() - read;
            written = minio.s3Metric("minio_api_requests_traffic_received_bytes") - written;
            requests = minio.s3Metric("minio_api_requests_total") - requests;
            System.out.printf(Locale.ROOT, "%-8s %-13s %4d %9d %10.2f %10.2f %12.0f %12d %8.2f %12d%n", recordSize,
                order, workers, total, (double) read / inputBytes, (double) written / inputBytes,
                requests / (inputBytes / 1073741824.0), mostOrdered, mostOrdered / ((double) total / workers),
                counts[1]);
            SortBench.clear(minio, bucket, "out/", "scratch/");
          }
        }
      }
      System.out.println();
      System.out.println("read/in, write/in: bytes MinIO sent and received over the phases, per input byte (writes"
          + " include the output, once); requests/GiB: every S3 request, per GiB of input; most ordered: the most"
          + " records one partition step ordered (duplicates included), and that over N/W; extract runs: the run"
          + " files the extract workers wrote to the store, in all.");
    }
  }

  /**
   * Runs every phase with {@code workers} indexes each; returns the most records one partition step ordered and the
   * runs the extract workers wrote.
   */
  private static long[] run(SortBench.Quarry quarry, String spec, int workers) throws Exception {
    long runs = 0;
    for (Path result : waves(quarry, workers, i -> List.of("sort", "extract", "--spec", spec, "--index", "" + i,
        "--count", "" + workers, "--partitions", "" + workers))) {
      JsonNode node = JSON.readTree(Files.readString(result));
      for (JsonNode phase : node.isArray() ? node : List.of(node)) {
        runs += phase.path("details").path("runs").asLong();
      }
    }
    long most = 0;
    for (Path result : waves(quarry, workers, i -> List.of("sort", "partition", "--spec", spec, "--index", "" + i,
        "--count", "" + workers, "--extract-count", "" + workers, "--then-plan"))) {
      JsonNode node = JSON.readTree(Files.readString(result));
      for (JsonNode phase : node.isArray() ? node : List.of(node)) {
        if (phase.path("phase").asText().equals("partition")) {
          most = Math.max(most, phase.path("records").asLong());
        }
      }
    }
    waves(quarry, workers, i -> List.of("sort", "create", "--spec", spec, "--index", "" + i, "--count",
        "" + workers, "--then-commit"));
    return new long[] {most, runs};
  }

  /** Runs the indexes of one phase, at most {@value #AT_ONCE} processes at once; their result files. */
  private static List<Path> waves(SortBench.Quarry quarry, int count, SortBench.Quarry.Args args) throws Exception {
    List<Path> results = new ArrayList<>();
    for (int start = 0; start < count; start += AT_ONCE) {
      int first = start;
      results.addAll(quarry.parallel(Math.min(AT_ONCE, count - start), i -> args.of(first + i)));
    }
    return results;
  }

  private static String spec(Path work, String bucket, String order, int inputShards, long shardSize)
      throws Exception {
    String json = """
        {"input": {"template": "s3://%s/in/train-{000000..%06d}.tar"},
         "output": {"template": "s3://%s/out/x-{000000..}.tar", "shardSize": "%d"},
         "order": {"kind": "%s"%s},
         "workers": {"memoryBudget": "%s", "requestsInFlight": 32},
         "scratch": "s3://%s/scratch/"}""".formatted(bucket, inputShards - 1, bucket, shardSize, order,
        switch (order) {
          case "shuffle" -> ", \"seed\": 7";
          case "content" -> ", \"content\": {\"member\": \"cls\", \"type\": \"int\"}";
          default -> "";
        }, BUDGET, bucket);
    return Files.writeString(work.resolve("scale.json"), json).toString();
  }

  private static long parseSize(String size) {
    String digits = size.replaceAll("[^0-9]", "");
    long unit = size.endsWith("Ki") ? 1024 : size.endsWith("Mi") ? 1 << 20 : 1;
    return Long.parseLong(digits) * unit;
  }
}
