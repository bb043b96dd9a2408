package dev.quarry.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/** The MinIO fixture is a real S3 server: the AWS SDK v2 round-trips every call our engines use. */
@ExtendWith(MinioExtension.class)
class MinioServerIT {
  private final MinioServer minio;
  private final RequestCounter counter = new RequestCounter();
  private S3Client s3;
  private String bucket;

  MinioServerIT(MinioServer minio) {
    this.minio = minio;
  }

  @BeforeEach
  void bucket() {
    s3 = S3Client.builder()
        .endpointOverride(minio.endpoint())
        .region(software.amazon.awssdk.regions.Region.of(MinioServer.REGION))
        .credentialsProvider(minio.credentials())
        .forcePathStyle(true)
        .overrideConfiguration(c -> c.addExecutionInterceptor(counter))
        .build();
    bucket = minio.createBucket("roundtrip");
  }

  @Test
  void putThenRangedGet() {
    byte[] data = "0123456789abcdefghij".getBytes(StandardCharsets.US_ASCII);
    s3.putObject(b -> b.bucket(bucket).key("a/b.bin"), RequestBody.fromBytes(data));

    byte[] range = s3.getObjectAsBytes(b -> b.bucket(bucket).key("a/b.bin").range("bytes=5-9")).asByteArray();
    assertThat(new String(range, StandardCharsets.US_ASCII)).isEqualTo("56789");
    assertThat(s3.headObject(b -> b.bucket(bucket).key("a/b.bin")).contentLength()).isEqualTo(20);
  }

  @Test
  void multipartUploadAssemblesItsParts() {
    byte[] part1 = new byte[5 * 1024 * 1024];
    byte[] part2 = new byte[1234];
    new Random(1).nextBytes(part1);
    new Random(2).nextBytes(part2);
    String upload = s3.createMultipartUpload(b -> b.bucket(bucket).key("big.tar")).uploadId();
    String etag1 = s3.uploadPart(b -> b.bucket(bucket).key("big.tar").uploadId(upload).partNumber(1),
        RequestBody.fromBytes(part1)).eTag();
    String etag2 = s3.uploadPart(b -> b.bucket(bucket).key("big.tar").uploadId(upload).partNumber(2),
        RequestBody.fromBytes(part2)).eTag();
    s3.completeMultipartUpload(b -> b.bucket(bucket).key("big.tar").uploadId(upload).multipartUpload(m -> m.parts(
        CompletedPart.builder().partNumber(1).eTag(etag1).build(),
        CompletedPart.builder().partNumber(2).eTag(etag2).build())));

    byte[] whole = s3.getObjectAsBytes(b -> b.bucket(bucket).key("big.tar")).asByteArray();
    assertThat(whole).hasSize(part1.length + part2.length);
    assertThat(java.util.Arrays.copyOfRange(whole, part1.length, whole.length)).isEqualTo(part2);
    assertThat(java.util.Arrays.copyOf(whole, part1.length)).isEqualTo(part1);
  }

  @Test
  void listingPaginatesAndStartsAfterAKey() {
    for (int i = 0; i < 25; i++) {
      String key = String.format("list/%03d", i);
      s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString(key));
    }
    counter.reset();
    List<String> keys = new ArrayList<>();
    String token = null;
    do {
      String continuation = token;
      ListObjectsV2Response page = s3.listObjectsV2(b -> b.bucket(bucket).prefix("list/").maxKeys(10)
          .continuationToken(continuation));
      page.contents().stream().map(S3Object::key).forEach(keys::add);
      token = page.nextContinuationToken();
    } while (token != null);
    assertThat(keys).hasSize(25).isSorted();
    assertThat(counter.count("GET")).as("three pages of 10").isEqualTo(3);

    List<String> after = s3.listObjectsV2(b -> b.bucket(bucket).prefix("list/").startAfter("list/019"))
        .contents().stream().map(S3Object::key).toList();
    assertThat(after).containsExactly("list/020", "list/021", "list/022", "list/023", "list/024");
  }

  @Test
  void headOfAMissingKeyIsExactlyOneRequest() {
    counter.reset();
    assertThatThrownBy(() -> s3.headObject(b -> b.bucket(bucket).key("missing")))
        .isInstanceOf(NoSuchKeyException.class);
    assertThat(counter.count("HEAD")).isEqualTo(1);
    assertThat(counter.total()).isEqualTo(1);
  }

  @Test
  void eachTestClassGetsAnEmptyServerWithItsOwnCredentials() {
    assertThat(minio.isAlive()).isTrue();
    assertThat(minio.accessKey()).startsWith("quarry-");
    assertThat(s3.listBuckets().buckets()).extracting(b -> b.name()).contains(bucket)
        .allMatch(name -> name.startsWith("roundtrip-"));
  }
}
