package dev.quarry.core.sort;

import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import java.util.UUID;
import org.junit.jupiter.api.extension.ExtendWith;

/** The sort contract on a real S3 server: every order, several formats, local and phased runs. */
@ExtendWith(MinioExtension.class)
class MinioSortIT extends SortContract {
  private final MinioServer minio;
  private final String bucket;

  MinioSortIT(MinioServer minio) {
    this.minio = minio;
    this.bucket = minio.createBucket("sort");
  }

  @Override
  ObjectStores openStores() {
    return new ObjectStores(S3Settings.defaults().withEndpoint(minio.endpoint())
        .withCredentials(minio.accessKey(), minio.secretKey()).withRequestsInFlight(16));
  }

  @Override
  String newRoot() {
    return "s3://" + bucket + "/" + UUID.randomUUID() + "/";
  }
}
