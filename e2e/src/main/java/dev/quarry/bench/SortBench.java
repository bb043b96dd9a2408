package dev.quarry.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quarry.testkit.MinioServer;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;

/**
 * Shuffles a generated dataset into shards on a local MinIO: once as separate phase processes (as worker pods run
 * it) and once as {@code quarry sort run}, each against a plain client-side copy of the same objects through the
 * same store, in the same run. Quarry runs through the {@code ./quarry} launcher, as users run it, from the jar's
 * startup cache (the worker image has one too), after an untimed warm-up of each command on a small dataset; the
 * copy ({@link ClientCopy}) runs as a process of its own too, from a startup cache of its own.
 * Each round measures both pairs again; the medians of the ratios are the result, as runs on shared cores vary by
 * 20% or so. Usage: SortBench QUARRY_LAUNCHER WORKDIR GIB SHARD_SIZE WORKERS [CREATE_WORKERS [ROUNDS]]
 */
public final class SortBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * Objects the copy moves at once, whatever the sort's worker counts (each upload also sends up to 4 parts at once):
   * 4, 8 and 16 copy the 2 GiB dataset in the same time here, within the noise.
   */
  private static final int COPY_PARALLEL = 8;
  /**
   * The format of the inputs `quarry gen` writes and of the output shards, as `input:output` in QUARRY_BENCH_FORMATS
   * (`tar:tar` when unset; for example `zip:zip`, `tar.gz:tar`): the formats extract repacks and create converts.
   */
  private static final String[] FORMATS = System.getenv().getOrDefault("QUARRY_BENCH_FORMATS", "tar:tar").split(":");

  public static void main(String[] args) throws Exception {
    Path launcher = Path.of(args[0]);
    Path work = Files.createDirectories(Path.of(args[1]));
    double gib = Double.parseDouble(args[2]);
    String shardSize = args[3];
    int workers = Integer.parseInt(args[4]);
    int createWorkers = args.length > 5 ? Integer.parseInt(args[5]) : 1;
    int rounds = args.length > 6 ? Integer.parseInt(args[6]) : 5;
    int inputShards = Math.max(workers, (int) Math.round(gib * 16)); // 64 MiB input shards
    int records = (int) (gib * 1024 * 1024 / 100 / inputShards); // ~100 KiB records
    try (MinioServer minio = MinioServer.start(); S3Client s3 = minio.client()) {
      String bucket = minio.createBucket("bench");
      Map<String, String> environment = Map.of("QUARRY_S3_ENDPOINT", minio.endpoint().toString(),
          "AWS_ACCESS_KEY_ID", minio.accessKey(), "AWS_SECRET_ACCESS_KEY", minio.secretKey());
      Quarry quarry = new Quarry(launcher, work, environment);
      quarry.run("gen", "--out", work.resolve("in").toString(), "--shards", "" + inputShards, "--records",
          "" + records, "--image-size", "100Ki", "--format", FORMATS[0]);
      long inputBytes = upload(s3, bucket, work.resolve("in"));
      long totalRecords = (long) inputShards * records;
      warmUp(quarry, work, bucket);
      System.out.printf(Locale.ROOT, "dataset: %d shards, %d records, %.2f GiB on MinIO; output shards of %s;"
          + " %d extract and %d create workers; %d cores%n%n", inputShards, totalRecords, inputBytes / 1073741824.0,
          shardSize, workers, createWorkers, Runtime.getRuntime().availableProcessors());

      // Untimed: makes the copy's startup cache, and MinIO's first writes are slower; measure none of them.
      copy(environment, work, bucket, "warm-up/", COPY_PARALLEL);
      // A local run holds record bytes in memory under half its budget: give it room for the whole dataset.
      long runBudgetMib = (long) Math.ceil(gib * 2.5 * 1024);
      System.out.printf(Locale.ROOT, "%-7s %-22s %8s %10s %12s %10s %14s%n", "round", "mode", "wall s", "vs copy",
          "records/s", "MB/s", "peak heap MiB");
      List<Double> phaseRatios = new ArrayList<>();
      List<Double> runRatios = new ArrayList<>();
      List<String> breakdowns = new ArrayList<>();
      long runPacks = 0;
      for (int round = 1; round <= rounds; round++) {
        settle();
        double copyPhases = copy(environment, work, bucket, "copy-a/", COPY_PARALLEL);
        settle();
        quarry.heapMib = 2048;
        quarry.peakHeap = 0;
        quarry.breakdown = "";
        double phases = phases(quarry, spec(work, bucket, inputShards, records, shardSize, "phases", "1Gi"),
            workers, createWorkers);
        settle();
        double copyRun = copy(environment, work, bucket, "copy-b/", COPY_PARALLEL);
        settle();
        quarry.heapMib = runBudgetMib + 1024;
        Path result = work.resolve("run-result.json");
        double run = quarry.timed("sort", "run", "--spec", spec(work, bucket, inputShards, records, shardSize, "run",
            runBudgetMib + "Mi"), "--json", "--result", result.toString());
        runPacks = JSON.readTree(Files.readString(result)).get(0).path("details").path("packBytesInMemory").asLong();
        row(round, "client-side copy", copyPhases, copyPhases, totalRecords, inputBytes, -1);
        row(round, "phases as processes", phases, copyPhases, totalRecords, inputBytes, quarry.peakHeap);
        row(round, "client-side copy", copyRun, copyRun, totalRecords, inputBytes, -1);
        row(round, "sort run (one process)", run, copyRun, totalRecords, inputBytes, peakHeap(result));
        phaseRatios.add(phases / copyPhases);
        runRatios.add(run / copyRun);
        breakdowns.add(String.format(Locale.ROOT, "round %d: phases as processes, seconds per phase (slowest"
            + " worker): %s%n         sort run, seconds per phase: %s", round, quarry.breakdown.strip(),
            breakdown(result)));
        clear(minio, bucket, "copy-a/", "copy-b/", "phases/", "run/", "scratch/");
      }
      System.out.println();
      System.out.printf(Locale.ROOT, "median over %d rounds, vs copy: phases as processes %.2fx (goal 1.60x), sort run"
          + " %.2fx (goal 1.20x)%n%n", rounds, median(phaseRatios), median(runRatios));
      breakdowns.forEach(System.out::println);
      System.out.println();
      System.out.println("vs copy: wall time over the copy measured just before it, in the same round.");
      System.out.printf(Locale.ROOT, "peak heap: the largest heap any one worker JVM used (its memory pools' peak"
          + " usage); phase workers have a 1Gi memory budget and 2 GiB heap, the local run a budget of 2.5 x the"
          + " dataset (half of it may hold record bytes, outside the heap: %d MiB held) and a heap 1 GiB larger (the"
          + " JVM's direct memory limit follows the heap's).%n", runPacks >> 20);
    }
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /** Deletes what a round wrote, so that rounds find the same store and the disk does not fill. */
  static void clear(MinioServer minio, String bucket, String... prefixes) throws IOException {
    S3Settings settings = S3Settings.defaults().withEndpoint(minio.endpoint())
        .withCredentials(minio.accessKey(), minio.secretKey());
    try (ObjectStores stores = new ObjectStores(settings)) {
      ObjectStore store = stores.locate("s3://" + bucket + "/").store();
      for (String prefix : prefixes) {
        for (ObjectInfo object : store.listAll(prefix).toList()) {
          store.delete(object.key());
        }
      }
    }
  }

  /**
   * Flushes what earlier steps wrote to disk, so that each timed step starts with no dirty pages: otherwise the
   * kernel's write-back of one step's 2 GiB throttles the writes of the next, whichever it is.
   */
  private static void settle() throws Exception {
    if (new ProcessBuilder("sync").inheritIO().start().waitFor() != 0) {
      throw new IllegalStateException("sync failed");
    }
  }

  private static void row(int round, String mode, double seconds, double copy, long records, long bytes, long heap) {
    System.out.printf(Locale.ROOT, "%-7d %-22s %8.1f %9.2fx %12.0f %10.0f %14s%n", round, mode, seconds,
        seconds / copy, records / seconds, bytes / 1e6 / seconds, heap < 0 ? "-" : Long.toString(heap >> 20));
  }

  /** Runs every command once on a small dataset of its own, untimed, so that the page cache and MinIO are warm. */
  private static void warmUp(Quarry quarry, Path work, String bucket) throws Exception {
    quarry.run("gen", "--out", work.resolve("warm-up").toString(), "--shards", "2", "--records", "20",
        "--image-size", "1Ki");
    String input = work.resolve("warm-up").toUri().getPath() + "train-{000000..000001}.tar";
    quarry.run("sort", "run", "--spec", spec(work, input, bucket, "4Ki", "warm-up-run", "64Mi"));
    String spec = spec(work, input, bucket, "4Ki", "warm-up-phases", "64Mi");
    quarry.run("sort", "extract", "--spec", spec, "--index", "0", "--count", "1", "--then-plan");
    quarry.run("sort", "create", "--spec", spec, "--index", "0", "--count", "1", "--then-commit");
    quarry.results = 0;
  }

  private static String spec(Path work, String bucket, int shards, int records, String shardSize, String name,
      String memoryBudget) throws IOException {
    return spec(work, "s3://%s/in/train-{000000..%06d}.%s".formatted(bucket, shards - 1, FORMATS[0]), bucket,
        shardSize, name,
        memoryBudget);
  }

  private static String spec(Path work, String input, String bucket, String shardSize, String name,
      String memoryBudget) throws IOException {
    String json = """
        {"input": {"template": "%s"},
         "output": {"template": "s3://%s/%s/shuffled-{000000..}.%s", "format": "%s", "shardSize": "%s"},
         "order": {"kind": "shuffle", "seed": 2026},
         "workers": {"memoryBudget": "%s", "requestsInFlight": 32},
         "scratch": "s3://%s/scratch/%s/"}""".formatted(input, bucket, name, FORMATS[1], FORMATS[1], shardSize,
        memoryBudget, bucket, name);
    return Files.writeString(work.resolve(name + ".json"), json).toString();
  }

  static long upload(S3Client s3, String bucket, Path dir) throws IOException {
    long bytes = 0;
    try (var files = Files.list(dir)) {
      for (Path file : files.sorted().toList()) {
        s3.putObject(b -> b.bucket(bucket).key("in/" + file.getFileName()), RequestBody.fromFile(file));
        bytes += Files.size(file);
      }
    }
    return bytes;
  }

  /**
   * Copies every input object to {@code prefix} with {@link ClientCopy}, a JVM of its own that starts from its own
   * startup cache, as each quarry command does: the baseline pays what a copy tool pays (a JVM's start, its JIT), no
   * more and no less. Returns the process's wall time.
   */
  private static double copy(Map<String, String> environment, Path work, String bucket, String prefix, int parallel)
      throws Exception {
    boolean aot = Runtime.version().feature() >= 25;
    Path cache = work.resolve(aot ? "copy.aot" : "copy.jsa");
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--enable-native-access=ALL-UNNAMED", "-Xlog:cds=off", "-Xlog:cds+dynamic=off"));
    if (aot) {
      command.addAll(List.of("-Xlog:aot=off", "-XX:UserThreadWaitAttemptsAtExit=1",
          (Files.exists(cache) ? "-XX:AOTCache=" : "-XX:AOTCacheOutput=") + cache));
    } else {
      command.add((Files.exists(cache) ? "-XX:SharedArchiveFile=" : "-XX:ArchiveClassesAtExit=") + cache);
    }
    command.addAll(List.of("-cp", copyClassPath(work), ClientCopy.class.getName(), bucket, "in/", prefix,
        Integer.toString(parallel)));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(work.resolve("copy.log").toFile());
    builder.environment().putAll(environment);
    long start = System.nanoTime();
    if (builder.start().waitFor() != 0) {
      throw new IllegalStateException("The copy failed: " + Files.readString(work.resolve("copy.log")));
    }
    return (System.nanoTime() - start) / 1e9;
  }

  /**
   * The copy's class path: jars only, as a startup cache refuses classes from a folder. ClientCopy goes into a jar of
   * its own; the store client's jars are the benchmark's.
   */
  private static String copyClassPath(Path work) throws IOException {
    Path jar = work.resolve("client-copy.jar");
    if (!Files.exists(jar)) {
      String entry = ClientCopy.class.getName().replace('.', '/') + ".class";
      try (InputStream in = ClientCopy.class.getClassLoader().getResourceAsStream(entry);
          JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
        out.putNextEntry(new JarEntry(entry));
        in.transferTo(out);
        out.closeEntry();
      }
    }
    List<String> path = new ArrayList<>(List.of(jar.toString()));
    for (String element : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (element.endsWith(".jar")) {
        path.add(element);
      }
    }
    return String.join(File.pathSeparator, path);
  }

  /**
   * The phases as the operator runs them: extract workers, the last of which to finish also plans (with one create
   * worker), or one partition step per create worker, the last of which plans; then create workers, the last of
   * which also commits.
   */
  private static double phases(Quarry quarry, String spec, int workers, int createWorkers) throws Exception {
    long start = System.nanoTime();
    if (createWorkers == 1) {
      quarry.parallel(workers, i -> List.of("sort", "extract", "--spec", spec, "--index", "" + i, "--count",
          "" + workers, "--then-plan"));
    } else {
      quarry.parallel(workers, i -> List.of("sort", "extract", "--spec", spec, "--index", "" + i, "--count",
          "" + workers, "--partitions", "" + createWorkers));
      quarry.parallel(createWorkers, i -> List.of("sort", "partition", "--spec", spec, "--index", "" + i,
          "--count", "" + createWorkers, "--extract-count", "" + workers, "--then-plan"));
    }
    quarry.parallel(createWorkers, i -> List.of("sort", "create", "--spec", spec, "--index", "" + i, "--count",
        "" + createWorkers, "--then-commit"));
    return (System.nanoTime() - start) / 1e9;
  }

  static String breakdown(Path result) throws IOException {
    JsonNode node = JSON.readTree(Files.readString(result, StandardCharsets.UTF_8));
    StringBuilder text = new StringBuilder();
    for (JsonNode phase : node) {
      text.append(String.format(Locale.ROOT, "%s %.1f (%d GET, %d PUT)  ", phase.path("phase").asText(),
          phase.path("elapsedSeconds").asDouble(), phase.path("requests").path("get").asLong(),
          phase.path("requests").path("put").asLong()));
    }
    return text.toString().strip();
  }

  static long peakHeap(Path result) throws IOException {
    JsonNode node = JSON.readTree(Files.readString(result, StandardCharsets.UTF_8));
    long peak = 0;
    for (JsonNode phase : node.isArray() ? node : List.of(node)) {
      peak = Math.max(peak, phase.path("details").path("peakHeapBytes").asLong());
    }
    return peak;
  }

  /** Runs quarry through its launcher, with the heap of a worker pod or of a local run. */
  static final class Quarry {
    final Path launcher;
    final Path work;
    final Map<String, String> environment;
    long peakHeap;
    long heapMib = 2048;
    int results;
    String breakdown = "";

    Quarry(Path launcher, Path work, Map<String, String> environment) {
      this.launcher = launcher;
      this.work = work;
      this.environment = environment;
    }

    void run(String... args) throws Exception {
      Process process = start(List.of(args));
      if (process.waitFor() != 0) {
        throw failed(List.of(args), process);
      }
    }

    private IllegalStateException failed(List<String> args, Process process) throws IOException {
      return new IllegalStateException("quarry " + String.join(" ", args) + " failed: "
          + Files.readString(errors(process)));
    }

    /** Each process's standard error, kept apart so that processes running at once do not mix theirs. */
    private Path errors(Process process) {
      return work.resolve("quarry-" + process.pid() + ".err");
    }

    double timed(String... args) throws Exception {
      long start = System.nanoTime();
      run(args);
      return (System.nanoTime() - start) / 1e9;
    }

    interface Args {
      List<String> of(int index);
    }

    /** Runs {@code count} processes at once, one per index, and records their peak heap; their result files. */
    List<Path> parallel(int count, Args args) throws Exception {
      List<Process> processes = new ArrayList<>();
      List<Path> resultFiles = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        Path result = work.resolve("result-" + results++ + ".json");
        List<String> withResult = new ArrayList<>(args.of(i));
        withResult.addAll(List.of("--result", result.toString()));
        processes.add(start(withResult));
        resultFiles.add(result);
      }
      // Per phase: the slowest index's seconds and the GETs of all (a worker's result lists the phase it ran after
      // its own, if any).
      Map<String, double[]> phases = new LinkedHashMap<>();
      for (int i = 0; i < count; i++) {
        if (processes.get(i).waitFor() != 0) {
          throw failed(args.of(i), processes.get(i));
        }
        peakHeap = Math.max(peakHeap, peakHeap(resultFiles.get(i)));
        JsonNode node = JSON.readTree(Files.readString(resultFiles.get(i)));
        for (JsonNode result : node.isArray() ? node : List.of(node)) {
          double[] phase = phases.computeIfAbsent(result.path("phase").asText(), name -> new double[2]);
          phase[0] = Math.max(phase[0], result.path("elapsedSeconds").asDouble());
          phase[1] += result.path("requests").path("get").asLong();
        }
      }
      phases.forEach((phase, totals) -> breakdown += String.format(Locale.ROOT, "%s %.1f (%d GET)  ", phase,
          totals[0], (long) totals[1]));
      return resultFiles;
    }

    private Process start(List<String> args) throws IOException {
      List<String> command = new ArrayList<>(List.of(launcher.toString()));
      command.addAll(args);
      Path errors = Files.createTempFile(work, "quarry-", ".err");
      ProcessBuilder builder = new ProcessBuilder(command).redirectError(errors.toFile())
          .redirectOutput(ProcessBuilder.Redirect.DISCARD);
      builder.environment().putAll(environment);
      builder.environment().put("QUARRY_JAVA_OPTIONS", "-Xmx" + heapMib + "m");
      Process process = builder.start();
      // Named by the process id, which the system reuses over the thousands of processes of a long run.
      Files.move(errors, errors(process), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      return process;
    }
  }
}
