package dev.quarry.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import dev.quarry.testkit.TestTools;
import dev.quarry.testkit.Toxiproxy;
import dev.quarry.testkit.ToxiproxyExtension;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The shard sort on a real S3 server, each phase a separate {@code quarry} process as in worker pods: the output
 * equals {@code quarry sort run}'s byte for byte, loads in WebDataset, and survives a worker killed with SIGKILL.
 */
@ExtendWith({MinioExtension.class, ToxiproxyExtension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SortOnMinioIT {
  private static final int SHARDS = 12;

  private final MinioServer minio;
  private final String bucket;
  @TempDir Path temp;
  @TempDir static Path dataset;

  SortOnMinioIT(MinioServer minio) {
    this.minio = minio;
    this.bucket = minio.createBucket("sort");
  }

  @BeforeAll
  void uploadADataset() throws Exception {
    Path local = dataset;
    CommandResult gen = QuarryJar.run(local, "gen", "--out", "in", "--shards", Integer.toString(SHARDS),
        "--records", "60", "--image-size", "24Ki");
    assertThat(gen.exitCode()).as(gen.stderr()).isZero();
    try (S3Client s3 = minio.client(); var files = Files.list(local.resolve("in"))) {
      for (Path file : files.toList()) {
        s3.putObject(b -> b.bucket(bucket).key("in/" + file.getFileName()), RequestBody.fromFile(file));
      }
    }
  }

  private static final String SHUFFLE = "{\"kind\": \"shuffle\", \"seed\": 5}";

  private String spec(String output, String scratch) {
    return spec(output, scratch, SHUFFLE);
  }

  /** A spec of {@code order} (its JSON). */
  private String spec(String output, String scratch, String order) {
    return """
        {"input": {"template": "s3://%s/in/train-{000000..%06d}.tar"},
         "output": {"template": "s3://%s/%s/x-{0000..}.tar", "shardSize": "2Mi"},
         "order": %s,
         "workers": {"memoryBudget": "64Mi", "requestsInFlight": 16},
         "scratch": "s3://%s/%s/"}""".formatted(bucket, SHARDS - 1, bucket, output, order, bucket, scratch);
  }

  private Map<String, String> environment(URI endpoint) {
    return Map.of("QUARRY_S3_ENDPOINT", endpoint.toString(), "AWS_ACCESS_KEY_ID", minio.accessKey(),
        "AWS_SECRET_ACCESS_KEY", minio.secretKey(), "AWS_REGION", MinioServer.REGION);
  }

  private CommandResult quarry(URI endpoint, String... args) throws Exception {
    return QuarryJar.run(temp, environment(endpoint), args);
  }

  private void ok(CommandResult result) {
    assertThat(result.exitCode()).as(result.stdout() + result.stderr()).isZero();
  }

  /** Every object under {@code prefix}: key to bytes. */
  private Map<String, byte[]> objects(String prefix) {
    Map<String, byte[]> objects = new TreeMap<>();
    try (S3Client s3 = minio.client()) {
      for (S3Object object : s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
        objects.put(object.key().substring(prefix.length()),
            s3.getObjectAsBytes(b -> b.bucket(bucket).key(object.key())).asByteArray());
      }
    }
    return objects;
  }

  private List<String> keys(String prefix) {
    try (S3Client s3 = minio.client()) {
      return s3.listObjectsV2(b -> b.bucket(bucket).prefix(prefix)).contents().stream().map(S3Object::key).toList();
    }
  }

  private Map<String, byte[]> reference() throws Exception {
    return reference("reference", SHUFFLE);
  }

  /** What {@code quarry sort run} writes for {@code order}, under {@code name}/ (run once). */
  private Map<String, byte[]> reference(String name, String order) throws Exception {
    if (objects(name + "/").isEmpty()) {
      Path spec = Files.writeString(temp.resolve(name + ".json"), spec(name, "unused", order));
      ok(quarry(minio.endpoint(), "sort", "run", "--spec", spec.toString()));
    }
    return objects(name + "/");
  }

  private void assertSameObjects(Map<String, byte[]> actual, Map<String, byte[]> expected) {
    assertThat(actual.keySet()).containsExactlyElementsOf(expected.keySet());
    expected.forEach((name, bytes) -> assertThat(actual.get(name)).as(name).isEqualTo(bytes));
  }

  @Test
  void theLastExtractAndCreateProcessesToFinishPlanAndCommitAsWorkerPodsDo() throws Exception {
    Path spec = Files.writeString(temp.resolve("folded.json"), spec("folded", "scratch/folded"));
    List<List<String>> extractPhases = runAtOnce(3, index -> List.of("sort", "extract", "--spec", spec.toString(),
        "--index", "" + index, "--count", "3", "--then-plan"));
    assertThat(extractPhases).allSatisfy(phases -> assertThat(phases.get(0)).isEqualTo("extract"));
    assertThat(extractPhases).as("the last to finish planned").anySatisfy(phases ->
        assertThat(phases).containsExactly("extract", "plan"));
    List<List<String>> createPhases = runAtOnce(2, index -> List.of("sort", "create", "--spec", spec.toString(),
        "--index", "" + index, "--count", "2", "--then-commit"));
    assertThat(createPhases).as("the last to finish committed").anySatisfy(phases ->
        assertThat(phases).containsExactly("create", "commit"));
    assertSameObjects(objects("folded/"), reference());
  }

  /** Runs {@code count} quarry processes at once; the phases each one's JSON result lists. */
  private List<List<String>> runAtOnce(int count, IntFunction<List<String>> args)
      throws Exception {
    List<Process> processes = new ArrayList<>();
    List<Path> dirs = new ArrayList<>();
    for (int index = 0; index < count; index++) {
      Path dir = Files.createDirectories(temp.resolve("worker-" + UUID.randomUUID()));
      List<String> command = new ArrayList<>(args.apply(index));
      command.addAll(List.of("--result", dir.resolve("result.json").toString()));
      processes.add(QuarryJar.start(dir, environment(minio.endpoint()), command.toArray(String[]::new)));
      dirs.add(dir);
    }
    List<List<String>> phases = new ArrayList<>();
    for (int index = 0; index < count; index++) {
      assertThat(processes.get(index).waitFor()).as(Files.readString(dirs.get(index).resolve("started.err")))
          .isZero();
      JsonNode result = new ObjectMapper().readTree(dirs.get(index).resolve("result.json").toFile());
      List<String> names = new ArrayList<>();
      for (JsonNode phase : result.isArray() ? result : List.of(result)) {
        names.add(phase.path("phase").asText());
      }
      phases.add(names);
    }
    return phases;
  }

  @Test
  void phasesAsSeparateProcessesEqualALocalRunAndLoadInWebDataset() throws Exception {
    Path spec = Files.writeString(temp.resolve("phases.json"), spec("phases", "scratch/phases"));
    for (int index = 0; index < 3; index++) {
      ok(quarry(minio.endpoint(), "sort", "extract", "--spec", spec.toString(), "--index", "" + index, "--count", "3"));
    }
    ok(quarry(minio.endpoint(), "sort", "plan", "--spec", spec.toString(), "--extract-count", "3"));
    for (int index = 0; index < 2; index++) {
      ok(quarry(minio.endpoint(), "sort", "create", "--spec", spec.toString(), "--index", "" + index, "--count", "2"));
    }
    CommandResult commit = quarry(minio.endpoint(), "sort", "commit", "--spec", spec.toString(), "--json");
    ok(commit);
    assertThat(commit.stdout()).contains("\"phase\" : \"commit\"", "x.manifest.json");

    Map<String, byte[]> output = objects("phases/");
    assertSameObjects(output, reference());
    assertThat(output).containsKeys("x.manifest.json", "x.wids.json", "x-0000.tar");

    Path download = Files.createDirectories(temp.resolve("download"));
    List<String> shards = new ArrayList<>();
    for (var object : output.entrySet()) {
      Files.write(download.resolve(object.getKey()), object.getValue());
      if (object.getKey().endsWith(".tar")) {
        shards.add(object.getKey());
      }
    }
    List<String> python = new ArrayList<>(List.of(TestTools.python().toString(), "-c", """
        import json, sys, webdataset as wds
        keys = [s['__key__'] for s in wds.WebDataset(sys.argv[1:], shardshuffle=False) if 'jpg' in s and 'cls' in s]
        index = json.load(open('x.wids.json'))
        print(len(keys), len(set(keys)), sum(s['nsamples'] for s in index['shardlist']))
        """));
    python.addAll(shards);
    String loaded = CommandResult.check(download, python.toArray(String[]::new)).strip();
    assertThat(loaded).isEqualTo((SHARDS * 60) + " " + (SHARDS * 60) + " " + (SHARDS * 60));
  }

  @Test
  void aCreateWorkerKilledMidPhaseLeavesNoHalfShardAndARerunFinishesIdentically(Toxiproxy toxiproxy)
      throws Exception {
    Path spec = Files.writeString(temp.resolve("crash.json"), spec("crash", "scratch/crash"));
    ok(quarry(minio.endpoint(), "sort", "extract", "--spec", spec.toString(), "--index", "0", "--count", "1"));
    ok(quarry(minio.endpoint(), "sort", "plan", "--spec", spec.toString(), "--extract-count", "1"));

    // Through a proxy capped at 4 MiB/s the shards take seconds: kill the worker as soon as the first is committed.
    Toxiproxy.Proxy slow = toxiproxy.proxy("slow-s3", minio.endpoint()).bandwidth(4096).uploadBandwidth(1024);
    Process worker = QuarryJar.start(temp, environment(slow.endpoint()), "sort", "create", "--spec",
        spec.toString(), "--index", "0", "--count", "1");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (keys("scratch/crash/create/").isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(worker.isAlive()).as("the worker is still creating shards when killed").isTrue();
    worker.destroyForcibly(); // SIGKILL: no cleanup runs
    assertThat(worker.waitFor(30, TimeUnit.SECONDS)).isTrue();

    Map<String, byte[]> partial = objects("crash/");
    Map<String, byte[]> reference = reference();
    assertThat(partial).as("an unfinished run: its pending record, and nothing that looks finished")
        .containsKey("x.pending.json").doesNotContainKeys("x.manifest.json", "x.wids.json");
    partial.remove("x.pending.json");
    assertThat(partial.size()).as("some shards were committed before the kill").isBetween(1,
        reference.size() - 3);
    partial.forEach((name, bytes) -> assertThat(bytes).as("%s is whole or absent", name)
        .isEqualTo(reference.get(name)));

    ok(quarry(minio.endpoint(), "sort", "create", "--spec", spec.toString(), "--index", "0", "--count", "1"));
    ok(quarry(minio.endpoint(), "sort", "commit", "--spec", spec.toString()));
    assertSameObjects(objects("crash/"), reference);
  }

  @Test
  void anExtractWorkerKilledMidPhaseIsRerunToTheSameOutput(Toxiproxy toxiproxy) throws Exception {
    Path spec = Files.writeString(temp.resolve("extract-crash.json"), spec("extract-crash", "scratch/extract-crash"));
    Toxiproxy.Proxy slow = toxiproxy.proxy("slow-extract", minio.endpoint()).bandwidth(2048);
    Process worker = QuarryJar.start(temp, environment(slow.endpoint()), "sort", "extract", "--spec",
        spec.toString(), "--index", "0", "--count", "1");
    Thread.sleep(2500);
    worker.destroyForcibly();
    assertThat(worker.waitFor(30, TimeUnit.SECONDS)).isTrue();

    ok(quarry(minio.endpoint(), "sort", "extract", "--spec", spec.toString(), "--index", "0", "--count", "1"));
    ok(quarry(minio.endpoint(), "sort", "plan", "--spec", spec.toString(), "--extract-count", "1"));
    ok(quarry(minio.endpoint(), "sort", "create", "--spec", spec.toString(), "--index", "0", "--count", "1"));
    ok(quarry(minio.endpoint(), "sort", "commit", "--spec", spec.toString()));
    assertSameObjects(objects("extract-crash/"), reference());
  }

  /**
   * For a shuffle, and for content and none orders, whose steps drop the copies of a key-hash range and write a list
   * per partition: the rerun of the killed step gives the output of a local run.
   */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"shuffle|" + SHUFFLE, "none|{\"kind\": \"none\"}",
      "content|{\"kind\": \"content\", \"descending\": true, \"content\": {\"member\": \"cls\", \"type\": \"int\"}}"})
  void aPartitionStepKilledMidwayIsRerunToTheSameOutput(String kind, String order, Toxiproxy toxiproxy)
      throws Exception {
    String name = "partition-crash-" + kind;
    Path spec = Files.writeString(temp.resolve(name + ".json"), spec(name, "scratch/" + name, order));
    for (int index = 0; index < 2; index++) {
      ok(quarry(minio.endpoint(), "sort", "extract", "--spec", spec.toString(), "--index", "" + index, "--count",
          "2", "--partitions", "3"));
    }
    // At 1 KiB/s its runs take seconds to read: the step is killed while it merges them.
    Toxiproxy.Proxy slow = toxiproxy.proxy("slow-partition-" + kind, minio.endpoint()).bandwidth(1);
    Process worker = QuarryJar.start(temp, environment(slow.endpoint()), "sort", "partition", "--spec",
        spec.toString(), "--index", "1", "--count", "3", "--extract-count", "2");
    Thread.sleep(3000);
    assertThat(worker.isAlive()).as("the partition step is still running when killed").isTrue();
    worker.destroyForcibly(); // SIGKILL: no cleanup runs
    assertThat(worker.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(keys("scratch/" + name + "/partition/00001/done.json")).isEmpty();

    for (int index = 0; index < 3; index++) {
      ok(quarry(minio.endpoint(), "sort", "partition", "--spec", spec.toString(), "--index", "" + index, "--count",
          "3", "--extract-count", "2", "--then-plan"));
    }
    for (int index = 0; index < 3; index++) {
      ok(quarry(minio.endpoint(), "sort", "create", "--spec", spec.toString(), "--index", "" + index, "--count",
          "3", "--then-commit"));
    }
    assertSameObjects(objects(name + "/"), kind.equals("shuffle") ? reference() : reference("reference-" + kind,
        order));
  }

  @Test
  void aPhaseRunBeforeItsInputsExistSaysWhatToRunFirst() throws Exception {
    Path spec = Files.writeString(temp.resolve("early.json"), spec("early", "scratch/early"));
    CommandResult plan = quarry(minio.endpoint(), "sort", "plan", "--spec", spec.toString(), "--extract-count", "2");
    assertThat(plan.exitCode()).isEqualTo(1);
    assertThat(plan.stderr().strip()).isEqualTo("quarry: Cannot plan: no input list in scratch (run quarry sort"
        + " extract --index 0 first)");
  }
}
