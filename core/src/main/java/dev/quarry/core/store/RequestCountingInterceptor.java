package dev.quarry.core.store;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/** Counts every HTTP attempt of an S3 client, retries included: the SDK calls beforeTransmission once per attempt. */
final class RequestCountingInterceptor implements ExecutionInterceptor {
  private final RequestCounts counts;

  RequestCountingInterceptor(RequestCounts counts) {
    this.counts = counts;
  }

  @Override
  public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
    RequestKind kind = kindOf(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME));
    if (kind != null) {
      counts.count(kind);
    }
  }

  /** The kind of an S3 operation; null for operations that S3Store never sends (its client is its own). */
  static RequestKind kindOf(String operation) {
    return switch (operation) {
      case "HeadObject" -> RequestKind.HEAD;
      case "ListObjectsV2", "ListMultipartUploads" -> RequestKind.LIST;
      case "GetObject" -> RequestKind.GET;
      case "PutObject", "CreateMultipartUpload", "UploadPart", "CompleteMultipartUpload" -> RequestKind.PUT;
      case "DeleteObject", "AbortMultipartUpload" -> RequestKind.DELETE;
      case null, default -> null;
    };
  }
}
