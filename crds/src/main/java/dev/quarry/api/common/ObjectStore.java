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
    @JsonPropertyDescription("Endpoint URL of the S3 API, for example http://minio.storage:9000. Leave empty for"
            + " AWS S3, whose endpoint follows from the region.")
        @Pattern("^https?://[^\\s/]+(/.*)?$")
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
        SecretKeys credentialsSecret) {}
