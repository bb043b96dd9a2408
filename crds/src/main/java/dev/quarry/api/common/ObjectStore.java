package dev.quarry.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;

/**
 * How to reach an S3-compatible object store (AWS S3, MinIO, Ceph RGW). Credentials come only from a Secret;
 * without one, the worker uses the default AWS credential chain (for example a pod identity).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ObjectStore(
    @JsonPropertyDescription("Endpoint URL of the S3 API, for example http://minio.storage:9000: http or https, a"
            + " host name or IP address, an optional port and optional path segments (letters, digits, '-', '_', '~'"
            + " and dots inside a segment); no user, query, fragment, escapes, '.' or '..' segments, so that the"
            + " cluster admin's endpoint allowlist compares what requests really reach. Leave empty for AWS S3, whose"
            + " endpoint follows from the region.")
        @Pattern(ENDPOINT_PATTERN)
        String endpoint,
    @JsonPropertyDescription("Region to sign requests for.")
        @Default("us-east-1")
        @Pattern("^[a-z0-9-]{1,32}$")
        String region,
    @JsonPropertyDescription("Address buckets as a path (http://host/bucket/key) instead of a host name"
            + " (http://bucket.host/key). Most MinIO and Ceph installations need true.")
        @Default("true")
        Boolean pathStyle,
    @JsonPropertyDescription("Secret holding the access key id and secret access key.")
        SecretKeys credentialsSecret) {
  /**
   * What an endpoint may be: scheme, host (a name, an IPv4 address or a bracketed IPv6 address), port and plain path
   * segments, none of them {@code .} or {@code ..}; the allowlist's prefix rule is sound only for such URLs.
   */
  public static final String ENDPOINT_PATTERN =
      "^https?://([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?(/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*/?$";
}
