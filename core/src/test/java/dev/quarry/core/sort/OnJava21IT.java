package dev.quarry.core.sort;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.Shards;
import dev.quarry.core.sort.extract.ScratchPacks;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import dev.quarry.testkit.TestTools;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sort on Java 21, the runtime of the default images (eclipse-temurin:21-jre), in a child JVM with one carrier
 * thread for virtual threads (a pod of one CPU), then two. On 21 a virtual thread that waits while it holds a monitor,
 * or waits to enter one, keeps its carrier; the build's JDK (25) no longer does, so code that passes every other test
 * can hang there. Before, extract added each shard's entries to the sorter inside a monitor, and a spill waited there
 * for virtual threads of its own: with as many carriers as CPUs, a worker of 1 to 4 CPUs hung at its first spill.
 * Each run spills under the least memory budget, on a folder store ({@code sort run}) and on MinIO (the phases as
 * workers run them, with extract's spills staged on its disk), and its shards are byte-identical to the same sort run
 * here.
 */
@ExtendWith(MinioExtension.class)
class OnJava21IT {
  /** Long enough for the sort on a loaded machine; the hang never ends. */
  private static final long CHILD_SECONDS = 180;

  private final MinioServer minio;
  private final String bucket;

  @TempDir
  Path dir;

  OnJava21IT(MinioServer minio) {
    this.minio = minio;
    this.bucket = minio.createBucket("java21");
  }

  @ParameterizedTest(name = "{0} carrier threads")
  @ValueSource(ints = {1, 2})
  void aSortThatSpillsEndsOnJava21WithFewCarrierThreadsAndWritesTheSameShards(int carriers) throws Exception {
    String s3Root = "s3://" + bucket + "/" + UUID.randomUUID() + "/";
    String folderRoot = dir + "/";
    try (ObjectStores stores = Child.stores(minio.endpoint(), minio.accessKey(), minio.secretKey())) {
      for (String root : List.of(folderRoot, s3Root)) {
        // 48,000 records in 4 shards: about 10 MiB of entries, past half of the least budget's 16 MiB.
        SortFixture.write(stores, root + "in/", ShardFormat.TAR, SortFixture.dataset(4, 12_000, 21));
      }
      for (String root : List.of(folderRoot, s3Root)) {
        Child.sort(stores, root, "here/", Path.of(dir.resolve("work-here").toString()));
      }
    }

    Path log = dir.resolve("child.log");
    Process child = new ProcessBuilder(TestTools.java21().toString(), "-Xmx256m",
        "-Djdk.virtualThreadScheduler.parallelism=" + carriers, "-cp", System.getProperty("java.class.path"),
        Child.class.getName(), minio.endpoint().toString(), minio.accessKey(), minio.secretKey(), folderRoot, s3Root,
        dir.resolve("work-child").toString())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    boolean ended = child.waitFor(CHILD_SECONDS, TimeUnit.SECONDS);
    if (!ended) {
      child.destroyForcibly().waitFor();
    }
    String printed = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(ended).as("the sort on Java 21 with %d carrier threads ended within %d s; it printed:%n%s", carriers,
        CHILD_SECONDS, printed).isTrue();
    assertThat(child.exitValue()).as(printed).isZero();
    assertThat(printed).contains("java 21");

    try (ObjectStores stores = Child.stores(minio.endpoint(), minio.accessKey(), minio.secretKey())) {
      for (String root : List.of(folderRoot, s3Root)) {
        Map<String, String> here = digests(stores, root + "here/");
        assertThat(here).as("shards and manifest of the run here").hasSizeGreaterThan(2);
        assertThat(digests(stores, root + "java21/")).as(root).isEqualTo(here);
      }
    }
  }

  /** Each object under {@code prefix}, by its name there, and the SHA-256 of its bytes. */
  private static Map<String, String> digests(ObjectStores stores, String prefix) throws IOException {
    Location location = stores.locate(prefix);
    Map<String, String> digests = new TreeMap<>();
    try (Stream<ObjectInfo> listed = location.store().listAll(location.key())) {
      for (ObjectInfo object : (Iterable<ObjectInfo>) listed::iterator) {
        digests.put(object.key().substring(location.key().length()),
            Shards.sha256(location.store().getBytes(object.key())));
      }
    }
    return digests;
  }

  /** Runs in the Java 21 child: the same sorts, into {@code java21/} of each root. */
  public static final class Child {
    public static void main(String[] args) throws Exception {
      System.out.println("java " + Runtime.version().feature());
      try (ObjectStores stores = stores(URI.create(args[0]), args[1], args[2])) {
        for (String root : List.of(args[3], args[4])) {
          sort(stores, root, "java21/", Path.of(args[5]));
          System.out.println("sorted " + root);
        }
      }
    }

    static ObjectStores stores(URI endpoint, String accessKey, String secretKey) {
      return new ObjectStores(S3Settings.defaults().withEndpoint(endpoint).withCredentials(accessKey, secretKey));
    }

    /**
     * An alphanumeric sort under the least budget of {@code root}'s input into {@code root + into}: on a folder store
     * as {@code sort run} does it; on S3 as phases, one extract worker of 2 partitions, 2 steps, 2 create workers.
     */
    static void sort(ObjectStores stores, String root, String into, Path work) throws Exception {
      SortSpec spec = new SortSpec(new SortSpec.Input(root + "in/in-{000..003}.tar", null, null, null),
          new SortSpec.Output(root + into + "x-{000..}.tar", "tar", null, 6_000L, null),
          new SortSpec.Order(OrderKind.ALPHANUMERIC, null, null, null, null), null,
          new SortSpec.Workers("16Mi", null), null, false);
      Files.createDirectories(work);
      if (!root.startsWith("s3://")) {
        LocalSort.run(spec, stores, work, SortContract.QUIET);
        return;
      }
      Location scratch = stores.locate(root + into.replace("/", "") + "-scratch/");
      SortPhases phases = new SortPhases(spec, stores, scratch,
          new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, SortContract.QUIET);
      phases.extract(0, 1, 2);
      for (int index = 0; index < 2; index++) {
        phases.partitionThenPlan(index, 2, 1);
      }
      for (int index = 0; index < 2; index++) {
        phases.createThenCommit(index, 2);
      }
    }
  }
}
