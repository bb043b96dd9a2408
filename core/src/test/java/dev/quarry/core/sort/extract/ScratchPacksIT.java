package dev.quarry.core.sort.extract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.Shards;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.SortPhases;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packs of compressed input shards (an order that keeps every record in one partition) written to a scratch on a
 * real S3 (MinIO) by an extract worker in a JVM of its own whose heap is small.
 */
@ExtendWith(MinioExtension.class)
class ScratchPacksIT {
  private static final int MIB = 1 << 20;
  private static final int SHARDS = 4;

  @TempDir
  Path dir;

  private final MinioServer minio;

  ScratchPacksIT(MinioServer minio) {
    this.minio = minio;
  }

  /**
   * Four tar.gz shards of 48 MiB each (made by GNU tar and gzip) extract under a 64 MiB heap, and each pack in scratch
   * is the shard's tar as gzip decompresses it. Before, each pack streamed to S3 through its parts in flight and the
   * one filling (40 MiB at 8 MiB parts, for each of the 4 shards read at once), and the child ran out of heap.
   */
  @Test
  void packsOfCompressedShardsGoToS3FromLocalFilesHoldingNoPart() throws Exception {
    Path in = Files.createDirectories(dir.resolve("in"));
    for (int shard = 0; shard < SHARDS; shard++) {
      Path files = Files.createDirectories(dir.resolve("files-" + shard));
      List<String> tar = new ArrayList<>(List.of("tar", "--format=gnu", "-czf",
          in.resolve("in-" + shard + ".tar.gz").toString()));
      Random random = new Random(shard);
      byte[] data = new byte[8 * MIB];
      for (int record = 0; record < 6; record++) {
        random.nextBytes(data);
        Files.write(files.resolve("s" + shard + "r" + record + ".bin"), data);
        tar.add("s" + shard + "r" + record + ".bin");
      }
      CommandResult made = CommandResult.run(files, tar);
      assertThat(made.exitCode()).as(made.stderr()).isZero();
    }
    String bucket = minio.createBucket("scratch");

    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    CommandResult run = CommandResult.run(dir, List.of(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
        SmallHeapExtract.class.getName(), dir.toString(), minio.endpoint().toString(), minio.accessKey(),
        minio.secretKey(), bucket));

    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(run.stdout().lines()).containsExactly("records " + SHARDS * 6);
    try (ObjectStores stores = new ObjectStores(settings(minio.endpoint(), minio.accessKey(), minio.secretKey()))) {
      Location scratch = stores.locate("s3://" + bucket + "/scratch/");
      ObjectStore store = scratch.store();
      for (int shard = 0; shard < SHARDS; shard++) {
        try (InputStream pack = store.get(new Scratch(scratch.key()).pack(shard));
            InputStream tar = new GZIPInputStream(Files.newInputStream(in.resolve("in-" + shard + ".tar.gz")))) {
          assertThat(Shards.sha256(pack)).as("pack " + shard).isEqualTo(Shards.sha256(tar));
        }
      }
    }
  }

  private static S3Settings settings(URI endpoint, String accessKey, String secretKey) {
    return S3Settings.defaults().withEndpoint(endpoint).withCredentials(accessKey, secretKey);
  }

  private static SortPhases phases(ObjectStores stores, Path dir, String bucket) {
    List<String> inputs = new ArrayList<>();
    for (int shard = 0; shard < SHARDS; shard++) {
      inputs.add(dir + "/in/in-" + shard + ".tar.gz");
    }
    SortSpec spec = new SortSpec(new SortSpec.Input(null, null, inputs, null),
        new SortSpec.Output(dir + "/out/x-{0..}.tar", null, null, 1000L, null),
        new SortSpec.Order(OrderKind.ALPHANUMERIC, null, null, null, null), null, new SortSpec.Workers("64Mi", null),
        null, false);
    Location scratch = stores.locate("s3://" + bucket + "/scratch/");
    return new SortPhases(spec, stores, scratch, new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false,
        new PrintStream(OutputStream.nullOutputStream()));
  }

  /** Extracts the four shards into the scratch on S3, as an extract worker of a 64Mi budget does. */
  public static final class SmallHeapExtract {
    public static void main(String[] args) throws Exception {
      try (ObjectStores stores = new ObjectStores(settings(URI.create(args[1]), args[2], args[3]))) {
        System.out.println("records " + phases(stores, Path.of(args[0]), args[4]).extract(0, 1).records());
      }
    }
  }
}
