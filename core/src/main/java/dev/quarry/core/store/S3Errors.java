package dev.quarry.core.store;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Turns SDK exceptions into IOExceptions "Cannot &lt;action&gt; &lt;url&gt;: &lt;what S3 said&gt;". */
final class S3Errors {
  /** After a refusal of an unsigned request: why it was unsigned and the two ways to sign it. */
  static final String UNSIGNED = "; the request was unsigned: no credentials were given and ambient ones are not"
      + " allowed (" + S3Settings.AMBIENT_CREDENTIALS_VARIABLE + "=false); name a credentialsSecret in the resource's"
      + " store, or have the cluster admin allow ambient credentials (chart value ambientCredentials)";

  private S3Errors() {}

  /**
   * @param bucket the store's bucket, named when it does not exist on the settings' endpoint: a typo in the bucket,
   *     or the wrong server (AWS rather than MinIO)
   */
  static IOException wrap(String action, String url, SdkException e, String bucket, S3Settings settings) {
    AwsErrorDetails details = e instanceof S3Exception s3 ? s3.awsErrorDetails() : null;
    String message = cannot(action, url, details == null ? null : details.errorCode(), reason(e, bucket, settings),
        bucket);
    if (e instanceof AbortedException || Thread.currentThread().isInterrupted()) {
      InterruptedIOException interrupted = new InterruptedIOException(message);
      interrupted.initCause(e);
      return interrupted;
    }
    if (e instanceof S3Exception s3 && (s3.statusCode() == 403 || s3.statusCode() == 501)) {
      return new RequestRefusedException(message, e);
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
  static String reason(SdkException e, String bucket, S3Settings settings) {
    if (e instanceof S3Exception s3) {
      AwsErrorDetails details = s3.awsErrorDetails();
      return describe(details == null ? null : details.errorCode(), s3.statusCode(),
          details == null ? null : details.errorMessage(), s3.requestId(), bucket, settings);
    }
    return e.getMessage();
  }

  /**
   * What S3 answered, in words, with what the store's settings tell about it: the bucket and endpoint when the bucket
   * does not exist, and what would sign the request when an unsigned one is refused.
   */
  static String describe(String code, int status, String message, String requestId, String bucket,
      S3Settings settings) {
    if ("NoSuchBucket".equals(code)) {
      return "bucket " + bucket + " does not exist on " + settings.endpointOrDefault() + " (check the bucket and the"
          + " endpoint; " + describe(code, status, null, requestId) + ")";
    }
    return describe(code, status, message, requestId) + (status == 403 && unsigned(settings) ? UNSIGNED : "");
  }

  /** Whether the store's requests go unsigned: no static credentials, and ambient ones not allowed. */
  private static boolean unsigned(S3Settings settings) {
    return settings.accessKeyId() == null && !settings.ambientCredentials();
  }

  /** "CODE (HTTP STATUS): MESSAGE [request ID]", leaving out what is null. */
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
