package dev.quarry.core.sort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.sort.extract.ScratchPacks;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.ObjectUpload;
import dev.quarry.core.store.S3Settings;
import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import java.time.Duration;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.extension.ExtendWith;

/** The sort contract on a real S3 server: every order, several formats, local and phased runs. */
@ExtendWith(MinioExtension.class)
class MinioSortIT extends SortContract {
  /** The connection pool of {@link #openStores()}: a plan with more runs than this must not wait for one. */
  private static final int POOLED_CONNECTIONS = 16;

  private final MinioServer minio;
  private final String bucket;

  MinioSortIT(MinioServer minio) {
    this.minio = minio;
    this.bucket = minio.createBucket("sort");
  }

  @Override
  ObjectStores openStores(UnaryOperator<ObjectStore> decorate) {
    return new ObjectStores(S3Settings.defaults().withEndpoint(minio.endpoint())
        .withCredentials(minio.accessKey(), minio.secretKey()).withRequestsInFlight(POOLED_CONNECTIONS), decorate);
  }

  @Override
  String newRoot() {
    return "s3://" + bucket + "/" + UUID.randomUUID() + "/";
  }

  /**
   * Small records of a shuffle into 4 partitions: each create worker reads its partition's segments of the extract
   * workers' packs, so the create workers together read the input's bytes about once, not once each (as when each
   * gathered its shards' records from every input: about 4 times). Counted by MinIO.
   */
  @org.junit.jupiter.api.Test
  void createWorkersTogetherReadTheInputAboutOnceWhateverTheirNumber() throws Exception {
    dataset = SortFixture.dataset(16, 100, 3);
    SortFixture.write(stores, root + "in/", ShardFormat.TAR, dataset);
    long inputBytes = objects(root + "in/").values().stream().mapToLong(bytes -> bytes.length).sum();
    SortSpec spec = spec(root + "in/in-{000..015}.tar", new SortSpec.Order(OrderKind.SHUFFLE, null, 4L, null, null),
        records(root + "out/x-{000..}.tar", 20));
    Location scratch = stores.locate(root + "scratch/");
    SortPhases phases = new SortPhases(spec, stores, scratch,
        new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, QUIET);
    for (int index = 0; index < 2; index++) {
      phases.extract(index, 2, 4);
    }
    for (int index = 0; index < 4; index++) {
      phases.partitionThenPlan(index, 4, 2);
    }
    long before = minio.bytesSent();
    for (int index = 0; index < 4; index++) {
      phases.create(index, 4);
    }
    long read = minio.bytesSent() - before;
    assertThat((double) read / inputBytes).as("bytes read by create per input byte").isLessThanOrEqualTo(2.1);
    phases.commit();
    assertThat(objects(root + "out/")).containsKey("x.manifest.json").hasSize(80 + 2);
  }

  /**
   * A create worker killed while it sent a shard (kill -9: nothing aborts its upload) leaves the shard's multipart
   * upload, whose parts S3 keeps and bills though no listing shows them; its rerun writes the shard anew, and the
   * commit gives the old upload up. An upload of another name in the same folder, not the job's, stays. The output
   * is at a bucket's root: MinIO lists uploads only for a whole key or a whole bucket.
   */
  @org.junit.jupiter.api.Test
  void theCommitGivesUpTheUnfinishedUploadOfAShardWhoseWorkerWasKilled() throws Exception {
    String outputBucket = minio.createBucket("killed");
    String output = "s3://" + outputBucket + "/";
    dataset = SortFixture.dataset(4, 50, 5);
    SortFixture.write(stores, root + "in/", ShardFormat.TAR, dataset);
    SortSpec spec = spec(root + "in/in-{000..003}.tar", new SortSpec.Order(OrderKind.SHUFFLE, null, 4L, null, null),
        records(output + "x-{000..}.tar", 20));
    SortPhases phases = phases(spec, root + "scratch/");
    phases.extract(0, 1);
    phases.plan(1);
    ObjectStore out = stores.locate(output).store();
    // What a killed worker leaves: an upload with a part stored (a part goes once the next byte follows it), never
    // committed or aborted. The same for a name the job does not write.
    for (String key : java.util.List.of("x-001.tar", "notes.bin")) {
      ObjectUpload killed = out.upload(key);
      killed.stream().write(new byte[9 << 20]);
    }
    phases.create(0, 1);
    try (software.amazon.awssdk.services.s3.S3Client client = minio.client()) {
      assertThat(client.listMultipartUploads(b -> b.bucket(outputBucket).prefix("x-001.tar")).uploads())
          .as("the shard written anew, the killed upload still there").hasSize(1);
    }
    phases.commit();

    assertThat(objects(output)).containsKeys("x.manifest.json", "x-001.tar").doesNotContainKey("notes.bin");
    assertThat(out.removeAbandonedUploads("x-001.tar", Duration.ZERO)).as("the killed worker's upload").isZero();
    assertThat(out.removeAbandonedUploads("notes.bin", Duration.ZERO)).as("another name's upload").isEqualTo(1);
  }

  /**
   * 200 extract indexes leave 200 runs, far more than the pool's connections: the plan merges them without holding
   * a connection per run (it used to open every run at once and wait for a 17th connection, for ten minutes).
   */
  @ParameterizedTest
  @EnumSource(value = OrderKind.class, names = {"ALPHANUMERIC", "SHUFFLE"})
  void aPlanAfterMoreExtractIndexesThanPooledConnectionsCompletesAsALocalRun(OrderKind kind) throws Exception {
    int indexes = 200;
    dataset = SortFixture.dataset(indexes, 2, 21);
    SortFixture.write(stores, root + "in/", ShardFormat.TAR, dataset);
    SortSpec.Order order = new SortSpec.Order(kind, null, kind == OrderKind.SHUFFLE ? 9L : null, null, null);
    SortSpec local = spec(root + "in/in-{000..199}.tar", order, records(root + "local/x-{000..}.tar", 37));
    LocalSort.run(local, stores, temp.resolve("work"), QUIET);

    SortSpec distributed = spec(root + "in/in-{000..199}.tar", order, records(root + "dist/x-{000..}.tar", 37));
    Location scratch = stores.locate(root + "scratch/");
    SortPhases phases = new SortPhases(distributed, stores, scratch,
        new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, QUIET);
    for (int index = 0; index < indexes; index++) {
      phases.extract(index, indexes);
    }
    PhaseResult plan = assertTimeoutPreemptively(Duration.ofMinutes(2), () -> phases.plan(indexes));
    assertThat(plan.records()).isEqualTo(2L * indexes);
    phases.create(0, 1);
    phases.commit();

    var localObjects = objects(root + "local/");
    var distObjects = objects(root + "dist/");
    assertThat(distObjects.keySet()).isEqualTo(localObjects.keySet()).contains("x.manifest.json");
    localObjects.forEach((name, bytes) -> assertThat(distObjects.get(name)).as(name).isEqualTo(bytes));
  }
}
