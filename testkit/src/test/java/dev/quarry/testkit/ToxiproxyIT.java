package dev.quarry.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/** toxiproxy in front of MinIO adds the latency it is told to, and can break connections. */
@ExtendWith({MinioExtension.class, ToxiproxyExtension.class})
class ToxiproxyIT {
  private static final int REQUESTS = 40;

  @Test
  void tenMillisecondsOfLatencyAreAddedToEachRequest(MinioServer minio, Toxiproxy toxiproxy) throws Exception {
    String bucket = minio.createBucket("latency");
    Toxiproxy.Proxy proxy = toxiproxy.proxy("s3-latency", minio.endpoint()).latency(Duration.ofMillis(10));
    try (S3Client direct = minio.client(); S3Client delayed = minio.clientFor(proxy.endpoint())) {
      direct.putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromString("v"));
      double directMillis = meanHeadMillis(direct, bucket);
      double delayedMillis = meanHeadMillis(delayed, bucket);
      double added = delayedMillis - directMillis;
      System.out.printf("HEAD mean: direct %.2f ms, through 10 ms latency %.2f ms, added %.2f ms%n",
          directMillis, delayedMillis, added);
      assertThat(added).isBetween(9.0, 30.0);
    }
  }

  @Test
  void resetPeerBreaksRequestsUntilRemoved(MinioServer minio, Toxiproxy toxiproxy) throws Exception {
    String bucket = minio.createBucket("reset");
    Toxiproxy.Proxy proxy = toxiproxy.proxy("s3-reset", minio.endpoint()).resetPeer(Duration.ZERO);
    try (S3Client client = minio.clientFor(proxy.endpoint())) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.headObject(b -> b.bucket(bucket).key("x")))
          .isInstanceOf(SdkClientException.class);
      proxy.remove("reset_peer");
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.headObject(b -> b.bucket(bucket).key("x")))
          .isInstanceOf(NoSuchKeyException.class);
    }
  }

  private static double meanHeadMillis(S3Client client, String bucket) {
    for (int i = 0; i < 5; i++) {
      client.headObject(b -> b.bucket(bucket).key("k"));
    }
    long start = System.nanoTime();
    for (int i = 0; i < REQUESTS; i++) {
      client.headObject(b -> b.bucket(bucket).key("k"));
    }
    return (System.nanoTime() - start) / 1e6 / REQUESTS;
  }
}
