package dev.quarry.core.store;

import java.io.IOException;
import java.io.InterruptedIOException;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Turns SDK exceptions into IOExceptions "Cannot &lt;action&gt; &lt;url&gt;: &lt;what S3 said&gt;". */
final class S3Errors {
  private S3Errors() {}

  static IOException wrap(String action, String url, SdkException e) {
    String message = "Cannot " + action + " " + url + ": " + reason(e);
    if (e instanceof AbortedException || Thread.currentThread().isInterrupted()) {
      InterruptedIOException interrupted = new InterruptedIOException(message);
      interrupted.initCause(e);
      return interrupted;
    }
    return new IOException(message, e);
  }

  /** For example "NoSuchBucket (HTTP 404): The specified bucket does not exist", or the client's own message. */
  static String reason(SdkException e) {
    if (e instanceof S3Exception s3) {
      AwsErrorDetails details = s3.awsErrorDetails();
      String code = details == null ? null : details.errorCode();
      String text = details == null ? null : details.errorMessage();
      return (code == null ? "" : code + " ") + "(HTTP " + s3.statusCode() + ")" + (text == null ? "" : ": " + text)
          + (s3.requestId() == null ? "" : " [request " + s3.requestId() + "]");
    }
    return e.getMessage();
  }

  static boolean hasStatus(SdkException e, int status) {
    return e instanceof S3Exception s3 && s3.statusCode() == status;
  }
}
