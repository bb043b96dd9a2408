package dev.quarry.core.store;

import dev.quarry.core.concurrent.Lazy;
import dev.quarry.core.units.ByteSize;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsRequest;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/**
 * One bucket of an S3-compatible server (AWS, MinIO, Ceph), through its own connection pool; see {@link S3Clients}
 * for timeouts and retries. HEAD, GET, PutObject and UploadPart go through {@link S3ObjectRequests}, the rest
 * through the SDK. GETs resume where they stopped when a connection breaks part-way ({@link ResumingInputStream}),
 * pinned to the object's etag so that they never mix two versions. Uploads are multipart in the background
 * ({@link S3Upload}); content whose hash the caller knows is one PutObject over plain HTTP.
 */
public final class S3Store implements ObjectStore {
  /** The largest object a single PutObject may carry. */
  private static final long MAX_PUT_BYTES = 5L << 30;
  static final String OCTET_STREAM = "application/octet-stream";
  /** The most a listing page may take: 1000 keys of 1024 bytes, each percent-encoded three times over, and more. */
  private static final long MAX_LISTING_BYTES = 16L << 20;
  /** How many times a conditional write answered 409 ConditionalRequestConflict is sent. */
  private static final int CONDITIONAL_CONFLICT_ATTEMPTS = 5;

  private final String bucket;
  /** The connection pool, built on first request by the thread that sends it: TLS setup costs about 80 ms. */
  private final Lazy<SdkHttpClient> http;
  /** The SDK client, built on first use: a status or a pull never needs it, and it costs about half a second. */
  private final Lazy<S3Client> client;
  private final S3ObjectRequests objects;
  private final AwsCredentialsProvider credentials;
  private final RequestCounts requests;
  private final S3Settings settings;
  /** Whether this store answered a conditional write 501 NotImplemented: its writes if absent are plain writes. */
  private volatile boolean conditionalWritesRefused;
  private final ExecutorService partUploads =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("quarry-s3-part-", 0).factory());

  private S3Store(String bucket, S3Settings settings) {
    this.bucket = bucket;
    this.settings = settings;
    this.requests = new RequestCounts();
    this.credentials = S3Clients.credentials(settings);
    this.http = new Lazy<>(() -> S3Clients.httpClient(settings));
    this.client = new Lazy<>(() -> S3Clients.create(settings, http.get(), credentials, requests));
    this.objects = new S3ObjectRequests(http, credentials, settings, bucket, requests);
  }

  /** A store for {@code bucket}; nothing is sent until the first request. */
  public static S3Store open(String bucket, S3Settings settings) {
    BucketNames.check(bucket);
    return new S3Store(bucket, settings);
  }

  public String bucket() {
    return bucket;
  }

  /** An SDK request's failure, with the action and URL before what S3 said. */
  private IOException failure(String action, String url, SdkException e) {
    return S3Errors.wrap(action, url, e, bucket, settings);
  }

  @Override
  public Optional<ObjectInfo> head(String key) throws IOException {
    ObjectKeys.checkKey(key);
    S3ObjectRequests.Response response = objects.send(RequestKind.HEAD, SdkHttpMethod.HEAD, key, Map.of(),
        Map.of(), null, "read", url(key), 404);
    response.close();
    if (response.status() == 404) {
      return Optional.empty();
    }
    return Optional.of(new ObjectInfo(key, response.contentLength(), unquoted(response.etag()),
        response.lastModified()));
  }

  @Override
  public InputStream get(String key) throws IOException {
    ObjectKeys.checkKey(key);
    S3ObjectRequests.Response first = getObject(key, null, null);
    long size = first.contentLength();
    if (size < 0) {
      abort(first);
      throw new IOException("Cannot read " + url(key) + ": the server sent no Content-Length");
    }
    return resuming(key, first, 0, size, first.etag());
  }

  @Override
  public InputStream getRange(String key, long offset, long length) throws IOException {
    ObjectKeys.checkKey(key);
    ObjectKeys.checkRange(offset, length);
    if (length == 0) {
      // S3 has no empty range; a HEAD tells whether the object exists and the offset lies within it.
      long size = head(key).orElseThrow(() -> new NoSuchObjectException(url(key))).size();
      if (offset > size) {
        throw ObjectKeys.rangeBeyondEnd(url(key), offset, length, size);
      }
      return InputStream.nullInputStream();
    }
    long end = offset + length;
    S3ObjectRequests.Response first;
    try {
      first = getObject(key, range(offset, end), null);
    } catch (RangeNotSatisfiable e) {
      throw rangeBeyondEnd(key, offset, length);
    }
    String contentRange = requireRange(first, key, offset);
    long size = totalSize(contentRange);
    if (size >= 0 && end > size) {
      abort(first);
      throw ObjectKeys.rangeBeyondEnd(url(key), offset, length, size);
    }
    return resuming(key, first, offset, end, first.etag());
  }

  /**
   * A GET of bytes [0, maxLength): its Content-Range gives the object's size. S3 answers 416 for any range of an empty
   * object (a missing one is a 404).
   */
  @Override
  public ObjectStart getStart(String key, int maxLength) throws IOException {
    ObjectKeys.checkKey(key);
    ObjectKeys.checkStartLength(maxLength);
    S3ObjectRequests.Response first;
    try {
      first = getObject(key, range(0, maxLength), null);
    } catch (RangeNotSatisfiable empty) {
      return new ObjectStart(new byte[0], 0);
    }
    long size = totalSize(requireRange(first, key, 0));
    if (size < 0) {
      abort(first);
      throw new IOException("Cannot read " + url(key) + ": the server's Content-Range did not give the object's size");
    }
    int length = (int) Math.min(maxLength, size);
    try (InputStream in = resuming(key, first, 0, length, first.etag())) {
      byte[] bytes = in.readNBytes(length);
      if (bytes.length != length) {
        throw new IOException("Cannot read " + url(key) + ": it ended at byte " + bytes.length + " of " + length);
      }
      return new ObjectStart(bytes, size);
    }
  }

  /** The error for a range starting past the end; S3's 416 does not say the size, so a HEAD asks for it. */
  private RangeBeyondEndException rangeBeyondEnd(String key, long offset, long length) throws IOException {
    long size = head(key).orElseThrow(() -> new NoSuchObjectException(url(key))).size();
    return ObjectKeys.rangeBeyondEnd(url(key), offset, length, size);
  }

  private InputStream resuming(String key, S3ObjectRequests.Response first, long offset, long end, String etag) {
    return new ResumingInputStream(url(key), body(first), offset, end, position -> {
      S3ObjectRequests.Response next = getObject(key, range(position, end), etag);
      requireRange(next, key, position);
      return body(next);
    }, settings.maxAttempts(), S3Clients.BACKOFF, settings.requestDeadline());
  }

  private static InputStream body(S3ObjectRequests.Response response) {
    return response.body() != null ? response.body() : InputStream.nullInputStream();
  }

  private static void abort(S3ObjectRequests.Response response) {
    if (response.body() != null) {
      response.body().abort();
    }
    response.close();
  }

  /**
   * Refuses a response that does not start at {@code offset}: a server or proxy that ignores Range answers 200 with
   * the whole object, and reading it as the range would silently give the wrong bytes.
   */
  private String requireRange(S3ObjectRequests.Response response, String key, long offset) throws IOException {
    String contentRange = response.header("Content-Range").orElse(null);
    if (contentRange == null || !contentRange.startsWith("bytes " + offset + "-")) {
      abort(response);
      throw new IOException("Cannot read " + url(key) + ": asked for bytes from " + offset + " but the server answered"
          + " with " + (contentRange == null ? "no Content-Range" : "Content-Range " + contentRange)
          + " (the endpoint must support ranged GETs)");
    }
    return contentRange;
  }

  private static String range(long offset, long end) {
    return "bytes=" + offset + "-" + (end - 1);
  }

  /** The total of a Content-Range such as "bytes 0-99/1000"; -1 when absent or unknown ("*"). */
  private static long totalSize(String contentRange) {
    if (contentRange == null || contentRange.endsWith("/*")) {
      return -1;
    }
    try {
      return Long.parseLong(contentRange.substring(contentRange.lastIndexOf('/') + 1).trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** A 416 from S3: the range starts at or after the end of the object. */
  private static final class RangeNotSatisfiable extends IOException {
    private static final long serialVersionUID = 1L;
  }

  /** GET of the object or a range of it; with {@code etag}, only while the object still has that etag. */
  private S3ObjectRequests.Response getObject(String key, String range, String etag) throws IOException {
    Map<String, String> headers = range == null && etag == null ? Map.of() : new HashMap<>();
    if (range != null) {
      headers.put("Range", range);
    }
    if (etag != null) {
      headers.put("If-Match", etag);
    }
    S3ObjectRequests.Response response;
    try {
      response = objects.send(RequestKind.GET, SdkHttpMethod.GET, key, Map.of(), headers, null, "read", url(key),
          412, 416);
    } catch (S3ObjectRequests.StatusException e) {
      // A missing bucket is a 404 too, and must not read as a missing object.
      if (e.status() == 404 && (e.code() == null || e.code().equals("NoSuchKey"))) {
        throw new NoSuchObjectException(url(key));
      }
      throw e;
    }
    switch (response.status()) {
      case 412 -> {
        response.close();
        throw new IOException("Cannot read " + url(key) + ": the object changed while it was read (its etag is no"
            + " longer " + unquoted(etag) + ")");
      }
      case 416 -> {
        response.close();
        if (range == null) {
          throw new IOException("Cannot read " + url(key) + ": the server refused a GET without a range (HTTP 416)");
        }
        throw new RangeNotSatisfiable();
      }
      default -> {
        return response;
      }
    }
  }

  @Override
  public void put(String key, byte[] data) throws IOException {
    ObjectKeys.checkKey(key);
    putBytes(key, data, data.length);
  }

  /**
   * PutObject with If-None-Match: *, which S3 refuses with 412 when the key exists. While another such PUT of the key
   * runs, AWS answers 409 ConditionalRequestConflict and asks to send it again: sent again after a pause. A store that
   * refuses the header (501 NotImplemented, as S3 did before conditional writes) gets a plain PUT, this time and every
   * later one, as a store that ignores the header would.
   */
  @Override
  public boolean putIfAbsent(String key, byte[] data) throws IOException {
    ObjectKeys.checkKey(key);
    for (int attempt = 1; !conditionalWritesRefused; attempt++) {
      try {
        S3ObjectRequests.Response response = objects.send(RequestKind.PUT, SdkHttpMethod.PUT, key, Map.of(),
            Map.of("If-None-Match", "*"), objects.body(data, data.length), "write", url(key), 412);
        response.close();
        return response.status() < 300;
      } catch (S3ObjectRequests.StatusException e) {
        if (e.status() == 501) {
          conditionalWritesRefused = true;
        } else if (e.status() == 409 && "ConditionalRequestConflict".equals(e.code())
            && attempt < CONDITIONAL_CONFLICT_ATTEMPTS) {
          pause(S3Clients.BACKOFF.computeDelay(attempt), key);
        } else {
          throw e;
        }
      }
    }
    putBytes(key, data, data.length);
    return true;
  }

  private void pause(Duration delay, String key) throws InterruptedIOException {
    try {
      Thread.sleep(delay);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Cannot write " + url(key) + ": interrupted while waiting to retry");
    }
  }

  /** PutObject of the first {@code length} bytes of {@code data}, which is not copied; returns the etag. */
  String putBytes(String key, byte[] data, int length) throws IOException {
    S3ObjectRequests.Response response = objects.send(RequestKind.PUT, SdkHttpMethod.PUT, key, Map.of(), Map.of(),
        objects.body(data, length), "write", url(key));
    response.close();
    return unquoted(response.etag());
  }

  /**
   * Over plain HTTP, one PutObject signed with the caller's hash (so the bytes are hashed once, by the caller) when
   * the object is within S3's single-request limit; over HTTPS the payload is not hashed for signing anyway, and a
   * multipart upload sends several parts at once: from where the bytes lie when the content has ranges (nothing
   * held; parts sized from the length), else streamed through buffers.
   */
  @Override
  public void put(String key, HashedContent content) throws IOException {
    ObjectKeys.checkKey(key);
    if (objects.isTls() || content.length() > MAX_PUT_BYTES) {
      if (content.ranges() != null) {
        put(key, content.ranges()); // parts sent from where the bytes lie, none held
      } else {
        ObjectStore.super.put(key, content);
      }
      return;
    }
    objects.send(RequestKind.PUT, SdkHttpMethod.PUT, key, Map.of(), Map.of(), objects.body(content), "write",
        url(key)).close();
  }

  /**
   * One PutObject when the content is within one part, else a multipart upload whose parts, sized from the length
   * ({@link PartSizes#forLength}), are read from the content as they are sent, {@value S3Upload#PARTS_IN_FLIGHT} at
   * once: nothing of the object is held. Over plain HTTP each part is read once more first, to be hashed for signing.
   */
  @Override
  public void put(String key, RangedContent content) throws IOException {
    ObjectKeys.checkKey(key);
    long length = content.length();
    if (length > PartSizes.MAX_OBJECT_BYTES) {
      throw new IOException("Cannot write " + url(key) + ": " + ByteSize.format(length) + ", more than the "
          + ByteSize.format(PartSizes.MAX_OBJECT_BYTES) + " an S3 object may hold");
    }
    int partBytes = PartSizes.forLength(length, settings.partSizeBytes());
    try {
      if (length <= partBytes) {
        objects.send(RequestKind.PUT, SdkHttpMethod.PUT, key, Map.of(), Map.of(), objects.body(content, 0, length),
            "write", url(key)).close();
        return;
      }
      try (S3Upload upload = new S3Upload(this, key, PartSizes.fixed(partBytes), partUploads)) {
        for (long offset = 0; offset < length; offset += partBytes) {
          upload.sendRange(content, offset, Math.min(partBytes, length - offset));
        }
        upload.commit();
      }
    } catch (HashedContent.Unreadable e) {
      throw new IOException("Cannot write " + url(key) + ": " + e.getMessage(), e);
    }
  }

  @Override
  public ObjectUpload upload(String key) {
    ObjectKeys.checkKey(key);
    return upload(key, PartSizes.growingFrom(settings.partSizeBytes()));
  }

  /**
   * Below one part, a buffer grown by doubling up to the size (at most twice it), the old one held while copied;
   * past it, the parts in flight and the one filling, each of the size the last part has grown to.
   */
  @Override
  public long uploadBufferBytes(long size) {
    return S3Upload.bufferBytes(size, PartSizes.growingFrom(settings.partSizeBytes()));
  }

  /** An upload whose parts follow {@code sizes} (tests give small limits). */
  ObjectUpload upload(String key, PartSizes sizes) {
    ObjectKeys.checkKey(key);
    return new S3Upload(this, key, sizes, partUploads);
  }

  String createMultipartUpload(String key) throws IOException {
    try {
      return client.get().createMultipartUpload(b -> b.bucket(bucket).key(key).contentType(OCTET_STREAM)
          .overrideConfiguration(o -> o.apiCallTimeout(settings.requestDeadline()))).uploadId();
    } catch (ApiCallTimeoutException e) {
      throw S3Errors.noAnswer("write", url(key), settings, "retries included", e);
    } catch (SdkException e) {
      throw failure("write", url(key), e);
    }
  }

  /** UploadPart of the first {@code length} bytes of {@code data}, which is not copied; returns the part's etag. */
  String uploadPart(String key, String uploadId, int number, byte[] data, int length) throws IOException {
    S3ObjectRequests.Response response = objects.send(RequestKind.PUT, SdkHttpMethod.PUT, key,
        Map.of("partNumber", Integer.toString(number), "uploadId", uploadId), Map.of(), objects.body(data, length),
        "write", url(key) + " (part " + number + ")");
    response.close();
    return response.etag();
  }

  /** UploadPart of bytes [offset, offset + length) of {@code content}, read as they are sent; returns the etag. */
  String uploadPart(String key, String uploadId, int number, RangedContent content, long offset, long length)
      throws IOException {
    String part = url(key) + " (part " + number + ")";
    try {
      S3ObjectRequests.Response response = objects.send(RequestKind.PUT, SdkHttpMethod.PUT, key,
          Map.of("partNumber", Integer.toString(number), "uploadId", uploadId), Map.of(),
          objects.body(content, offset, length), "write", part);
      response.close();
      return response.etag();
    } catch (HashedContent.Unreadable e) {
      throw new IOException("Cannot write " + part + ": " + e.getMessage(), e);
    }
  }

  /**
   * Returns the etag of the whole object. No deadline of its own: S3 may take minutes to assemble a large object,
   * sending spaces meanwhile, and each attempt still ends after {@link S3Settings#attemptTimeout()} of silence.
   */
  String completeMultipartUpload(String key, String uploadId, List<CompletedPart> parts) throws IOException {
    try {
      return unquoted(client.get().completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId)
          .multipartUpload(m -> m.parts(parts))).eTag());
    } catch (SdkException e) {
      throw failure("write", url(key), e);
    }
  }

  /** The multipart uploads started under {@code prefix} before {@code olderThan} ago, listed page by page. */
  @Override
  public int removeAbandonedUploads(String prefix, Duration olderThan) throws IOException {
    Instant cutoff = Instant.now().minus(olderThan);
    return abortUploads(prefix, upload -> upload.initiated() != null && !upload.initiated().isAfter(cutoff));
  }

  /**
   * One listing of the uploads under {@code prefix}, page by page, whatever their keys. MinIO lists uploads only for a
   * whole key or a whole bucket (an empty prefix); under a folder it lists none, and expires them itself after a day.
   */
  @Override
  public int removeUnfinishedUploadsOf(String prefix, Set<String> keys) throws IOException {
    for (String key : keys) {
      if (!key.startsWith(prefix)) {
        throw new IllegalArgumentException("Cannot give up the uploads of " + url(key) + ": it is not under "
            + url(prefix));
      }
    }
    return keys.isEmpty() ? 0 : abortUploads(prefix, upload -> keys.contains(upload.key()));
  }

  private int abortUploads(String prefix, Predicate<MultipartUpload> given) throws IOException {
    ObjectKeys.checkPrefix(prefix);
    int removed = 0;
    ListMultipartUploadsRequest.Builder request = ListMultipartUploadsRequest.builder().bucket(bucket).prefix(prefix)
        .overrideConfiguration(o -> o.apiCallTimeout(settings.requestDeadline()));
    for (boolean more = true; more; ) {
      ListMultipartUploadsResponse page;
      try {
        page = client.get().listMultipartUploads(request.build());
      } catch (ApiCallTimeoutException e) {
        throw S3Errors.noAnswer("list the uploads under", url(prefix), settings, "retries included", e);
      } catch (SdkException e) {
        throw failure("list the uploads under", url(prefix), e);
      }
      for (MultipartUpload upload : page.uploads()) {
        if (given.test(upload)) {
          abortMultipartUpload(upload.key(), upload.uploadId());
          removed++;
        }
      }
      more = Boolean.TRUE.equals(page.isTruncated()) && page.nextKeyMarker() != null;
      request.keyMarker(page.nextKeyMarker()).uploadIdMarker(page.nextUploadIdMarker());
    }
    return removed;
  }

  void abortMultipartUpload(String key, String uploadId) throws IOException {
    try {
      client.get().abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId)
          .overrideConfiguration(o -> o.apiCallTimeout(settings.requestDeadline())));
    } catch (ApiCallTimeoutException e) {
      throw S3Errors.noAnswer("abort the upload of", url(key), settings, "retries included", e);
    } catch (SdkException e) {
      throw failure("abort the upload of", url(key), e);
    }
  }

  /**
   * ListObjectsV2 over plain HTTP, as HEAD and GET: a push, a status or a pull lists a little, and building the SDK
   * client for it cost more than their requests (about half a second of a one-file push).
   */
  @Override
  public ListPage list(String prefix, String startAfter, int maxKeys) throws IOException {
    ObjectKeys.checkPrefix(prefix);
    ObjectKeys.checkMaxKeys(maxKeys);
    Map<String, String> query = new HashMap<>();
    query.put("list-type", "2");
    query.put("encoding-type", "url");
    query.put("prefix", prefix);
    query.put("max-keys", Integer.toString(maxKeys));
    if (startAfter != null) {
      query.put("start-after", startAfter);
    }
    byte[] body;
    S3ObjectRequests.Response response = objects.send(RequestKind.LIST, SdkHttpMethod.GET, "", query, Map.of(), null,
        "list", url(prefix));
    if (response.body() == null) {
      throw new IOException("Cannot list " + url(prefix) + ": the server answered without a body");
    }
    try (InputStream in = new LimitedInputStream(response.body(), MAX_LISTING_BYTES,
        "Cannot list " + url(prefix) + ": the server's answer is larger than a page may be")) {
      body = in.readAllBytes();
    }
    ListObjectsXml.Page page = ListObjectsXml.parse(body, url(prefix));
    List<ObjectInfo> objects = page.objects();
    if (!page.truncated()) {
      return new ListPage(objects, null);
    }
    if (objects.isEmpty()) {
      throw new IOException("Cannot list " + url(prefix) + ": the server said more keys follow "
          + (startAfter == null ? "the start" : startAfter) + " but sent none");
    }
    return new ListPage(objects, objects.getLast().key());
  }

  /** DeleteObject over plain HTTP: a push deletes its lease, and that alone should not build the SDK client. */
  @Override
  public void delete(String key) throws IOException {
    ObjectKeys.checkKey(key);
    objects.send(RequestKind.DELETE, SdkHttpMethod.DELETE, key, Map.of(), Map.of(), null, "delete", url(key))
        .close();
  }

  /** Whether the SDK client was built: only multipart uploads and their listing need it. */
  boolean sdkClientBuilt() {
    boolean[] built = {false};
    client.ifBuilt(c -> built[0] = true);
    return built[0];
  }

  @Override
  public String url(String key) {
    return "s3://" + bucket + "/" + key;
  }

  @Override
  public RequestCounts requests() {
    return requests;
  }

  /** Waits for part uploads still running, then closes the connection pool. */
  @Override
  public void close() {
    partUploads.close();
    client.ifBuilt(S3Client::close);
    http.ifBuilt(SdkHttpClient::close);
    if (credentials instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        // Only the default chain holds anything (a refresh thread), and the process is done with it.
      }
    }
  }

  /** S3 quotes etags ("\"9b2cf...\""); ObjectInfo carries them bare. */
  static String unquoted(String etag) {
    if (etag != null && etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"")) {
      return etag.substring(1, etag.length() - 1);
    }
    return etag;
  }
}
