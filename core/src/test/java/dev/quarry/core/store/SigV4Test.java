package dev.quarry.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.AwsSessionCredentialsIdentity;

/** Our signatures equal the AWS SDK's own signer's for the same request, clock and credentials. */
class SigV4Test {
  private static final Instant NOW = Instant.parse("2026-11-22T09:08:07Z");
  private static final String ACCESS_KEY = "AKIDEXAMPLE";
  private static final String SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

  @ParameterizedTest(name = "{0} {2} on {1} port {3}, token {5}, upload {6}")
  @CsvSource(delimiter = '|', value = {
      "GET  | minio.local    | /bucket/blobs/ab/abcdef       | 9000 |      | | ",
      "HEAD | s3.example.com | /bucket/a b+c=d&e/ü/日本.txt  | -1   |      | | ",
      "PUT  | 127.0.0.1      | /b/trees/0f/x~y_z.-(1)!*'     | 80   | data | | ",
      "PUT  | bucket.s3.eu-west-1.amazonaws.com | /k%2F/..%/a | 443 | more | session-token/+= | ",
      "GET  | bucket.s3.eu-west-1.amazonaws.com | /           | -1  |      | FwoGZXIvYXdzE | ",
      "PUT  | 127.0.0.1      | /b/out/shard-000001.tar       | 9000 | part | | ZDk2Yz/Nm+E=.x_y~z",
      "PUT  | bucket.s3.eu-west-1.amazonaws.com | /out/a b.tar | 443 | part | | 2~VJd.JGUv7WEVHm-Q9AKhiaIA"})
  void signaturesEqualTheSdkSigners(String method, String host, String key, int port, String body, String token,
      String uploadId) {
    byte[] payload = body == null ? null : body.getBytes(StandardCharsets.UTF_8);
    boolean tls = port == 443;
    // Over TLS a body is sent unhashed, as the SDK does by default there.
    String payloadSha256 = payload == null ? SigV4.EMPTY_PAYLOAD_SHA256
        : tls ? SigV4.UNSIGNED_PAYLOAD : SigV4.sha256Hex(payload, payload.length);
    Map<String, String> query = uploadId == null ? Map.of() : Map.of("uploadId", uploadId, "partNumber", "12");
    String encodedPath = SigV4.encodePath(key);
    String scheme = tls ? "https" : "http";
    String hostHeader = port == -1 || port == 80 || port == 443 ? host : host + ":" + port;

    SigV4.Signed ours = new SigV4("eu-west-1").sign(method, hostHeader, encodedPath, SigV4.canonicalQuery(query),
        payloadSha256, ACCESS_KEY, SECRET, token, NOW);

    SdkHttpRequest.Builder builder = SdkHttpRequest.builder()
        .method(SdkHttpMethod.fromValue(method)).protocol(scheme).host(host).port(port == -1 ? null : port)
        .encodedPath(encodedPath)
        .putHeader("x-amz-content-sha256", payloadSha256);
    query.forEach(builder::putRawQueryParameter);
    SdkHttpRequest request = builder.build();
    AwsCredentialsIdentity identity = token == null ? AwsCredentialsIdentity.create(ACCESS_KEY, SECRET)
        : AwsSessionCredentialsIdentity.create(ACCESS_KEY, SECRET, token);
    SignedRequest sdk = AwsV4HttpSigner.create().sign(r -> r
        .identity(identity)
        .request(request)
        .payload(payload == null ? null : ContentStreamProvider.fromByteArray(payload))
        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
        .putProperty(AwsV4HttpSigner.REGION_NAME, "eu-west-1")
        .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
        .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
        .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, !tls || payload == null)
        .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(NOW, ZoneOffset.UTC)));

    assertThat(sdk.request().firstMatchingHeader("X-Amz-Date")).contains(ours.amzDate());
    assertThat(ours.authorization()).isEqualTo(sdk.request().firstMatchingHeader("Authorization").orElseThrow());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "blobs/ab/abc                | blobs/ab/abc",
      "a b/ü                       | a%20b/%C3%BC",
      "x+y=z&w?v#u%t               | x%2By%3Dz%26w%3Fv%23u%25t",
      "~._-                        | ~._-"})
  void keysAreEncodedOnceKeepingSlashes(String key, String encoded) {
    assertThat(SigV4.encodePath(key)).isEqualTo(encoded);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "a/b+c=d    | partNumber=3&uploadId=a%2Fb%2Bc%3Dd",
      "x y~z._-   | partNumber=3&uploadId=x%20y~z._-"})
  void queriesAreSortedAndEncodeSlashes(String uploadId, String canonical) {
    assertThat(SigV4.canonicalQuery(Map.of("uploadId", uploadId, "partNumber", "3"))).isEqualTo(canonical);
  }
}
