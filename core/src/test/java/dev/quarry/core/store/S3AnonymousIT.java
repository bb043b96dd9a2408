package dev.quarry.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A worker whose resource names no Secret, where the admin does not allow ambient credentials, sends unsigned
 * requests: MinIO answers a public bucket (a signed request with any key it does not know would be refused) and
 * refuses a private one, even though the SDK's default chain would find valid keys in this JVM.
 */
@ExtendWith(MinioExtension.class)
class S3AnonymousIT {
  private static final String EXPECTED_HINT = "; the request was unsigned: no credentials were given and ambient"
      + " ones are not allowed (QUARRY_S3_AMBIENT_CREDENTIALS=false); name a credentialsSecret in the resource's"
      + " store, or have the cluster admin allow ambient credentials (chart value ambientCredentials)";
  private final MinioServer minio;
  private String privateBucket;
  private String publicBucket;

  S3AnonymousIT(MinioServer minio) {
    this.minio = minio;
  }

  /** Valid keys where the SDK's default chain looks first (after the variables): what a node's role would give. */
  @BeforeEach
  void ambientKeysAndTwoBuckets() {
    System.setProperty("aws.accessKeyId", minio.accessKey());
    System.setProperty("aws.secretAccessKey", minio.secretKey());
    privateBucket = minio.createBucket("private");
    publicBucket = minio.createBucket("public");
    try (S3Client admin = minio.client()) {
      admin.putBucketPolicy(b -> b.bucket(publicBucket).policy("{\"Version\":\"2012-10-17\",\"Statement\":[{"
          + "\"Effect\":\"Allow\",\"Principal\":{\"AWS\":[\"*\"]},\"Action\":[\"s3:GetObject\"],"
          + "\"Resource\":[\"arn:aws:s3:::" + publicBucket + "/*\"]}]}"));
      for (String bucket : new String[] {privateBucket, publicBucket}) {
        admin.putObject(b -> b.bucket(bucket).key("data/a.txt"), RequestBody.fromString("hello"));
      }
    }
  }

  @AfterEach
  void noAmbientKeys() {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
  }

  private S3Settings settings(boolean ambient) {
    return S3Settings.defaults().withEndpoint(minio.endpoint()).withAmbientCredentials(ambient).withMaxAttempts(1);
  }

  @Test
  void withAmbientCredentialsTheChainsKeysAreUsed() throws Exception {
    try (S3Store store = S3Store.open(privateBucket, settings(true))) {
      assertThat(new String(store.getBytes("data/a.txt"), StandardCharsets.UTF_8)).isEqualTo("hello");
    }
  }

  @Test
  void withoutThemRequestsAreUnsignedSoAPublicBucketServesThem() throws Exception {
    try (S3Store store = S3Store.open(publicBucket, settings(false))) {
      assertThat(new String(store.getBytes("data/a.txt"), StandardCharsets.UTF_8)).isEqualTo("hello");
    }
  }

  @Test
  void withoutThemAPrivateBucketRefusesInOneLineThatSaysWhatAllowsCredentials() throws Exception {
    try (S3Store store = S3Store.open(privateBucket, settings(false))) {
      String url = "s3://" + privateBucket + "/data/a.txt";
      assertThatThrownBy(() -> store.getBytes("data/a.txt")).isInstanceOf(IOException.class)
          .hasMessageStartingWith("Cannot read " + url + ": AccessDenied (HTTP 403): ")
          .hasMessageEndingWith(EXPECTED_HINT)
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
      assertThatThrownBy(() -> store.head("data/a.txt")).isInstanceOf(IOException.class)
          .hasMessageStartingWith("Cannot read " + url + ": (HTTP 403)")
          .hasMessageEndingWith(EXPECTED_HINT);
      assertThatThrownBy(() -> store.put("data/b.txt", new byte[] {1})).isInstanceOf(IOException.class)
          .hasMessageStartingWith("Cannot write s3://" + privateBucket + "/data/b.txt: AccessDenied (HTTP 403)")
          .hasMessageEndingWith(EXPECTED_HINT);
      assertThatThrownBy(() -> store.listAll("data/").toList()).hasMessageStartingWith("Cannot list s3://"
          + privateBucket + "/data/: AccessDenied (HTTP 403)").hasMessageEndingWith(EXPECTED_HINT);
    }
  }
}
