package dev.quarry.core.cache.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.cache.host.LoopDevice;
import dev.quarry.core.cache.host.MountTable;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Images in S3 (no shared filesystem) are downloaded into the cache and verified before their first mount. */
@ExtendWith(MinioExtension.class)
class S3ImageIT {
  private final MinioServer minio;
  @TempDir Path temp;

  S3ImageIT(MinioServer minio) {
    this.minio = minio;
  }

  @Test
  void downloadsVerifiesAndMountsAnImageFromS3() throws Exception {
    TestImage data = TestImage.build(temp, "weights", 6, 1 << 20, 11);
    String bucket = minio.createBucket("images");
    S3Settings s3 = S3Settings.defaults().withEndpoint(minio.endpoint())
        .withCredentials(minio.accessKey(), minio.secretKey());
    Path mountRoot = temp.resolve("mnt");
    Path cacheDir = temp.resolve("cache");
    try (ObjectStores stores = new ObjectStores(s3);
        CacheAgent agent = new CacheAgent(stores::locate, CopySlots.unlimited(), Clock.systemUTC(), Duration.ofMinutes(5))) {
      stores.locate("s3://" + bucket + "/v1/weights.sqfs").store().put("v1/weights.sqfs", Files.readAllBytes(data.image()));
      AgentSettings settings = new AgentSettings("models", "models-uid",
          List.of(new ImageSpec("weights", "s3://" + bucket + "/v1/weights.sqfs", data.sha256(), false, 0)),
          mountRoot, cacheDir, roots(mountRoot, cacheDir), CacheCapacity.parse("1Gi"), Duration.ofMinutes(10), 10, 0);
      NodeReport first = agent.pass(settings);
      assertThat(first.images().get(0).state()).isIn(ImageState.PENDING);
      assertThat(MountTable.read().stackAt(mountRoot.resolve("weights"))).as("nothing mounted before the copy").isEmpty();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      NodeReport report = first;
      while (report.images().get(0).state() != ImageState.CACHED) {
        assertThat(System.nanoTime()).as("last report %s", report).isLessThan(deadline);
        agent.awaitWork(Duration.ofMillis(200));
        report = agent.pass(settings);
      }
      assertThat(report.images().get(0).reason()).isEqualTo("stored in S3, so served from the cache only");
      var stack = MountTable.read().stackAt(mountRoot.resolve("weights"));
      assertThat(stack).hasSize(1);
      assertThat(LoopDevice.ofDevice(stack.get(0).device()).orElseThrow().backingFile())
          .isEqualTo(cacheDir.resolve("models/copies/weights.sqfs"));
      for (var file : data.fileDigests().entrySet()) {
        assertThat(Digest.ofFile(mountRoot.resolve("weights").resolve(file.getKey())).hex()).isEqualTo(file.getValue());
      }
    } finally {
      CacheAgent.removeOwned(roots(mountRoot, cacheDir), cacheDir, "models");
    }
  }

  private static NodeRoots roots(Path mountRoot, Path cacheDir) {
    return NodeRoots.of(List.of(mountRoot), List.of(cacheDir), List.of());
  }
}
