package dev.quarry.core.store;

import dev.quarry.core.memory.JdkIoBuffers;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * The object requests that a sync or a shard sort sends by the thousand (HEAD, GET, PUT and UploadPart), signed here
 * ({@link SigV4}) and sent straight through the store's pooled HTTP client. The SDK's request pipeline (endpoint rules,
 * interceptors, marshalling) costs more client CPU per small object than the request itself on a fast store; these
 * requests skip it and keep what matters: the same connection pool, the same credentials provider, every attempt
 * counted, and the SDK's retry rules (I/O errors, 500, 502, 503, 504, throttling) with the same backoff.
 */
final class S3ObjectRequests {
  private static final Pattern CODE = Pattern.compile("<Code>([^<]*)</Code>");
  private static final Pattern MESSAGE = Pattern.compile("<Message>([^<]*)</Message>");
  private static final int ERROR_BODY_LIMIT = 64 << 10;

  private final Supplier<SdkHttpClient> http;
  private final AwsCredentialsProvider credentials;
  /** For messages: the bucket. */
  private final String bucket;
  private final SigV4 signer;
  private final RequestCounts counts;
  private final int maxAttempts;
  private final S3Settings settings;
  private final String scheme;
  private final String host;
  private final int port;
  private final String hostHeader;
  private final String pathPrefix;

  /** A response with a status below 300, or one the caller asked to see ({@code accepted}). */
  record Response(int status, SdkHttpResponse headers, AbortableInputStream body) {
    Optional<String> header(String name) {
      return headers.firstMatchingHeader(name);
    }

    long contentLength() {
      return header("Content-Length").map(Long::parseLong).orElse(-1L);
    }

    String etag() {
      return header("ETag").orElse(null);
    }

    Instant lastModified() {
      try {
        return header("Last-Modified")
            .map(text -> ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant()).orElse(null);
      } catch (DateTimeParseException e) {
        return null;
      }
    }

    /** Returns the connection to the pool; the body, if any, is small or already read. */
    void close() {
      if (body != null) {
        try {
          body.close();
        } catch (IOException ignored) {
          // A connection that fails to close is dropped by the pool.
        }
      }
    }
  }

  /** An answer of 300 or more that the caller did not accept, after retries: S3's code and message in words. */
  static final class StatusException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String code;

    StatusException(String message, int status, String code) {
      super(message);
      this.status = status;
      this.code = code;
    }

    int status() {
      return status;
    }

    /** S3's error code, such as NoSuchKey; null when the answer had no body (a HEAD). */
    String code() {
      return code;
    }
  }

  S3ObjectRequests(Supplier<SdkHttpClient> http, AwsCredentialsProvider credentials, S3Settings settings, String bucket,
      RequestCounts counts) {
    this.http = http;
    this.credentials = credentials;
    this.signer = new SigV4(settings.region());
    this.counts = counts;
    this.maxAttempts = settings.maxAttempts();
    this.settings = settings;
    URI endpoint = settings.endpointOrDefault();
    this.bucket = bucket;
    this.scheme = endpoint.getScheme();
    this.host = settings.pathStyle() ? endpoint.getHost() : bucket + "." + endpoint.getHost();
    this.port = endpoint.getPort();
    boolean defaultPort = port == -1 || (port == 80 && scheme.equals("http")) || (port == 443
        && scheme.equals("https"));
    this.hostHeader = defaultPort ? host : host + ":" + port;
    String basePath = endpoint.getRawPath() == null ? "" : endpoint.getRawPath().replaceAll("/+$", "");
    this.pathPrefix = basePath + (settings.pathStyle() ? "/" + SigV4.encodePath(bucket) : "") + "/";
  }

  /** A request body that can be sent again for a retry: its bytes, their length and the hash to sign. */
  record Body(ContentStreamProvider content, long length, String payloadSha256) {}

  /** The first {@code length} bytes of {@code data}, not copied; hashed unless the endpoint is HTTPS. */
  Body body(byte[] data, int length) {
    ContentStreamProvider content = length == data.length ? ContentStreamProvider.fromByteArrayUnsafe(data)
        : () -> new ByteArrayInputStream(data, 0, length);
    return new Body(content, length, isTls() ? SigV4.UNSIGNED_PAYLOAD : SigV4.sha256Hex(data, length));
  }

  /**
   * Bytes whose SHA-256 the caller knows: signed with it, so that they are not hashed again. Content that gives
   * fewer or more bytes than announced fails the request at once ({@link HashedContent#open()}).
   */
  Body body(HashedContent hashed) {
    ContentStreamProvider content = () -> {
      try {
        return sendBuffered(hashed.open());
      } catch (IOException e) {
        throw new BodyUnavailable(e);
      }
    };
    return new Body(content, hashed.length(), isTls() ? SigV4.UNSIGNED_PAYLOAD
        : HexFormat.of().formatHex(hashed.sha256()));
  }

  /**
   * Bytes [offset, offset + length) of {@code content}, read again for each attempt; over plain HTTP read once more
   * first, to hash them for signing. Content that gives fewer or more bytes fails the request at once.
   */
  Body body(RangedContent content, long offset, long length) throws IOException {
    String payloadSha256 = SigV4.UNSIGNED_PAYLOAD;
    if (!isTls()) {
      try (InputStream in = HashedContent.LengthMismatch.checking(content.open(offset, length), length)) {
        payloadSha256 = SigV4.sha256Hex(in);
      }
    }
    ContentStreamProvider provider = () -> {
      try {
        return sendBuffered(HashedContent.LengthMismatch.checking(content.open(offset, length), length));
      } catch (IOException e) {
        throw new BodyUnavailable(e);
      }
    };
    return new Body(provider, length, payloadSha256);
  }

  /**
   * {@code content} read in slices of 256 KiB: the HTTP client reads a body 4 KiB at a time, a system call each from a
   * file (32,768 for a part of 128 MiB).
   */
  private static InputStream sendBuffered(InputStream content) {
    return new BufferedInputStream(content, JdkIoBuffers.CACHED_BYTES);
  }

  /** A body that could not be opened, carried out of the HTTP client, which asks for it without a checked throws. */
  private static final class BodyUnavailable extends UncheckedIOException {
    private static final long serialVersionUID = 1L;

    BodyUnavailable(IOException cause) {
      super(cause);
    }
  }

  /** Over TLS a body is sent unhashed, as the AWS SDK does: TLS already guards it. */
  boolean isTls() {
    return scheme.equals("https");
  }

  /**
   * Sends a request until it gets an answer that is final: below 300, one of {@code accepted}, or an error that
   * retrying cannot mend (then a {@link StatusException}). The body of a returned response is the caller's to close.
   *
   * @param query query parameters, raw (partNumber, uploadId)
   * @param headers extra headers, sent unsigned (Range, If-Match)
   * @param body what to send, null for nothing
   */
  Response send(RequestKind kind, SdkHttpMethod method, String key, Map<String, String> query,
      Map<String, String> headers, Body body, String action, String url, int... accepted) throws IOException {
    String encodedPath = pathPrefix + SigV4.encodePath(key);
    String canonicalQuery = SigV4.canonicalQuery(query);
    String payloadSha256 = body == null ? SigV4.EMPTY_PAYLOAD_SHA256 : body.payloadSha256();
    ContentStreamProvider content = body == null ? null : body.content();
    // The deadline counts from the last answer: a server that answers (even 503) is alive and paced by backoff.
    long lastAnswer = System.nanoTime();
    for (int attempt = 1; ; attempt++) {
      AwsCredentials identity;
      try {
        identity = credentials.resolveCredentials();
      } catch (SdkException e) {
        throw S3Errors.wrap(action, url, e, bucket, settings);
      }
      SdkHttpFullRequest.Builder request = SdkHttpFullRequest.builder()
          .method(method).protocol(scheme).host(host).port(port == -1 ? null : port).encodedPath(encodedPath)
          .putHeader("Host", hostHeader)
          .putHeader("x-amz-content-sha256", payloadSha256);
      // Anonymous credentials (no key id) mean an unsigned request, as the SDK sends them.
      if (identity.accessKeyId() != null) {
        String token = identity instanceof AwsSessionCredentials session ? session.sessionToken() : null;
        SigV4.Signed signed = signer.sign(method.name(), hostHeader, encodedPath, canonicalQuery, payloadSha256,
            identity.accessKeyId(), identity.secretAccessKey(), token, Instant.now());
        request.putHeader("x-amz-date", signed.amzDate()).putHeader("Authorization", signed.authorization());
        if (token != null) {
          request.putHeader("x-amz-security-token", token);
        }
      }
      if (body != null) {
        request.putHeader("Content-Length", Long.toString(body.length()));
        request.putHeader("Content-Type", S3Store.OCTET_STREAM);
      }
      headers.forEach(request::putHeader);
      query.forEach(request::putRawQueryParameter);
      counts.count(kind);
      HttpExecuteResponse response;
      try {
        response = http.get().prepareRequest(HttpExecuteRequest.builder().request(request.build())
            .contentStreamProvider(content).build()).call();
      } catch (BodyUnavailable e) {
        throw e.getCause(); // sending again would not mend that
      } catch (HashedContent.Unreadable e) {
        throw new IOException("Cannot " + action + " " + url + ": " + e.getMessage(), e);
      } catch (IOException e) {
        if (S3Errors.isInterruption(e)) {
          InterruptedIOException interrupted = new InterruptedIOException("Cannot " + action + " " + url
              + ": interrupted");
          interrupted.initCause(e);
          throw interrupted;
        }
        Duration delay = S3Clients.BACKOFF.computeDelay(attempt);
        Duration silent = Duration.ofNanos(System.nanoTime() - lastAnswer);
        if (silent.plus(delay).plus(settings.attemptTimeout()).compareTo(settings.requestDeadline()) > 0) {
          throw S3Errors.noAnswer(action, url, settings, attempt + " attempts, the last: " + e.getMessage(), e);
        }
        if (attempt >= maxAttempts) {
          throw new IOException("Cannot " + action + " " + url + ": " + e.getMessage() + " (" + attempt
              + " attempts)", e);
        }
        sleep(delay, action, url);
        continue;
      }
      lastAnswer = System.nanoTime();
      SdkHttpResponse headersIn = response.httpResponse();
      int status = headersIn.statusCode();
      AbortableInputStream bodyIn = response.responseBody().orElse(null);
      if (status < 300 || contains(accepted, status)) {
        return new Response(status, headersIn, bodyIn);
      }
      String error = readError(bodyIn);
      String code = first(CODE, error);
      boolean throttled = status == 429 || "SlowDown".equals(code) || "Throttling".equals(code)
          || "ThrottlingException".equals(code) || "RequestLimitExceeded".equals(code);
      boolean retryable = throttled || status == 500 || status == 502 || status == 503 || status == 504
          || "RequestTimeout".equals(code) || "InternalError".equals(code);
      if (!retryable || attempt >= maxAttempts) {
        String message = first(MESSAGE, error);
        String requestId = headersIn.firstMatchingHeader("x-amz-request-id").orElse(null);
        throw new StatusException(S3Errors.cannot(action, url, code,
            S3Errors.describe(code, status, message, requestId, bucket, settings), bucket)
            + (retryable ? " (" + attempt + " attempts)" : ""), status, code);
      }
      backOff(attempt, throttled, action, url);
    }
  }

  private static void backOff(int attempt, boolean throttled, String action, String url)
      throws InterruptedIOException {
    sleep((throttled ? S3Clients.THROTTLED_BACKOFF : S3Clients.BACKOFF).computeDelay(attempt), action, url);
  }

  private static void sleep(Duration delay, String action, String url) throws InterruptedIOException {
    try {
      Thread.sleep(delay);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Cannot " + action + " " + url + ": interrupted while waiting to retry");
    }
  }

  private static String readError(AbortableInputStream body) {
    if (body == null) {
      return "";
    }
    try (InputStream in = body) {
      return new String(in.readNBytes(ERROR_BODY_LIMIT), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  private static String first(Pattern pattern, String text) {
    Matcher matcher = pattern.matcher(text);
    return matcher.find() ? matcher.group(1) : null;
  }

  private static boolean contains(int[] values, int value) {
    for (int each : values) {
      if (each == value) {
        return true;
      }
    }
    return false;
  }
}
