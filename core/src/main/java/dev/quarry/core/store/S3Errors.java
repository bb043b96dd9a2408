package dev.quarry.core.store;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Turns SDK exceptions into IOExceptions "Cannot &lt;action&gt; &lt;url&gt;: &lt;what S3 said&gt;". */
final class S3Errors {
  private S3Errors() {}

  /**
   * @param bucket the store's bucket and {@code endpoint} its server, named when the bucket does not exist there: a
   *     typo in the bucket, or the wrong server (AWS rather than MinIO)
   */
  static IOException wrap(String action, String url, SdkException e, String bucket, URI endpoint) {
    AwsErrorDetails details = e instanceof S3Exception s3 ? s3.awsErrorDetails() : null;
    String message = cannot(action, url, details == null ? null : details.errorCode(), reason(e, bucket, endpoint),
        bucket);
    if (e instanceof AbortedException || Thread.currentThread().isInterrupted()) {
      InterruptedIOException interrupted = new InterruptedIOException(message);
      interrupted.initCause(e);
      return interrupted;
    }
    return new IOException(message, e);
  }

  /**
   * "Cannot &lt;action&gt; &lt;url&gt;: &lt;reason&gt;", but a missing bucket is named as the user gave it: the
   * object a request was for (a push's lease, a marker) is none of theirs.
   */
  static String cannot(String action, String url, String code, String reason, String bucket) {
    return "NoSuchBucket".equals(code) ? "Cannot use s3://" + bucket + ": " + reason
        : "Cannot " + action + " " + url + ": " + reason;
  }

  /**
   * A request that heard nothing from the server for its whole deadline, retries included: one line that names the
   * endpoint and says what to do.
   */
  static IOException noAnswer(String action, String url, S3Settings settings, String detail, Exception cause) {
    return new IOException("Cannot " + action + " " + url + ": no answer from " + settings.endpointOrDefault()
        + " within " + settings.requestDeadline().toSeconds() + " s (" + detail + "); check that the endpoint is up"
        + " and reachable from here, or allow more with QUARRY_S3_REQUEST_DEADLINE", cause);
  }

  /** For example "NoSuchBucket (HTTP 404): The specified bucket does not exist", or the client's own message. */
  static String reason(SdkException e, String bucket, URI endpoint) {
    if (e instanceof S3Exception s3) {
      AwsErrorDetails details = s3.awsErrorDetails();
      return describe(details == null ? null : details.errorCode(), s3.statusCode(),
          details == null ? null : details.errorMessage(), s3.requestId(), bucket, endpoint);
    }
    return e.getMessage();
  }

  /** What S3 answered, in words: "CODE (HTTP STATUS): MESSAGE [request ID]", leaving out what is null. */
  static String describe(String code, int status, String message, String requestId, String bucket, URI endpoint) {
    if ("NoSuchBucket".equals(code)) {
      return "bucket " + bucket + " does not exist on " + endpoint + " (check the bucket and the endpoint; "
          + describe(code, status, null, requestId) + ")";
    }
    return describe(code, status, message, requestId);
  }

  static String describe(String code, int status, String message, String requestId) {
    return (code == null ? "" : code + " ") + "(HTTP " + status + ")" + (message == null ? "" : ": " + message)
        + (requestId == null ? "" : " [request " + requestId + "]");
  }

  /**
   * Whether a failed read or request was interrupted, rather than failing on its own: a read timeout is an
   * InterruptedIOException too, and is a failure worth retrying.
   */
  static boolean isInterruption(IOException e) {
    return Thread.currentThread().isInterrupted()
        || (e instanceof InterruptedIOException && !(e instanceof SocketTimeoutException));
  }
}
