package dev.quarry.core.store;

import dev.quarry.core.memory.JdkIoBuffers;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4 for S3 requests in headers (the Authorization header), as S3 and S3-compatible servers
 * verify it. The derived signing key is kept per day, region and secret, so that a request costs one SHA-256 of its
 * canonical form and one HMAC. Signed headers: host, x-amz-content-sha256, x-amz-date and x-amz-security-token when
 * there is a session token; other headers (Range, If-Match, Content-Length) are sent unsigned, which S3 allows.
 */
final class SigV4 {
  static final String EMPTY_PAYLOAD_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  /** The payload hash of a body sent over TLS: TLS already guards it, so it is not hashed (as the AWS SDK does). */
  static final String UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";
  private static final String ALGORITHM = "AWS4-HMAC-SHA256";
  private static final String SERVICE = "s3";
  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
  private static final HexFormat HEX = HexFormat.of();

  private final String region;
  private volatile SigningKey signingKey;

  /** The key of one day: HMAC chain of the secret, date, region, service and "aws4_request". */
  private record SigningKey(String secret, String date, byte[] key) {}

  /** The headers to send, Authorization included. */
  record Signed(String amzDate, String authorization) {}

  SigV4(String region) {
    this.region = region;
  }

  /**
   * Signs a request.
   *
   * @param method GET, HEAD, PUT...
   * @param host the Host header's value: the host, with ":port" when the port is not the scheme's default
   * @param encodedPath the path as sent, each segment URI-encoded ({@link #encodePath(String)}); no query
   * @param canonicalQuery the query string in canonical form ({@link #canonicalQuery(Map)}), empty for none
   * @param payloadSha256 hex SHA-256 of the body ({@link #EMPTY_PAYLOAD_SHA256} for none, or
   *     {@link #UNSIGNED_PAYLOAD})
   * @param sessionToken null without one
   */
  Signed sign(String method, String host, String encodedPath, String canonicalQuery, String payloadSha256,
      String accessKeyId, String secretAccessKey, String sessionToken, Instant now) {
    String amzDate = AMZ_DATE.format(now);
    String date = amzDate.substring(0, 8);
    StringBuilder canonical = new StringBuilder(256)
        .append(method).append('\n')
        .append(encodedPath).append('\n')
        .append(canonicalQuery).append('\n')
        .append("host:").append(host).append('\n')
        .append("x-amz-content-sha256:").append(payloadSha256).append('\n')
        .append("x-amz-date:").append(amzDate).append('\n');
    String signedHeaders = "host;x-amz-content-sha256;x-amz-date";
    if (sessionToken != null) {
      canonical.append("x-amz-security-token:").append(sessionToken.trim()).append('\n');
      signedHeaders += ";x-amz-security-token";
    }
    canonical.append('\n').append(signedHeaders).append('\n').append(payloadSha256);
    String scope = date + "/" + region + "/" + SERVICE + "/aws4_request";
    String stringToSign = ALGORITHM + "\n" + amzDate + "\n" + scope + "\n" + sha256Hex(canonical.toString());
    String signature = HEX.formatHex(hmac(keyFor(secretAccessKey, date), stringToSign));
    return new Signed(amzDate, ALGORITHM + " Credential=" + accessKeyId + "/" + scope + ", SignedHeaders="
        + signedHeaders + ", Signature=" + signature);
  }

  private byte[] keyFor(String secret, String date) {
    SigningKey current = signingKey;
    if (current != null && current.date().equals(date) && current.secret().equals(secret)) {
      return current.key();
    }
    byte[] key = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), date);
    key = hmac(key, region);
    key = hmac(key, SERVICE);
    key = hmac(key, "aws4_request");
    signingKey = new SigningKey(secret, date, key);
    return key;
  }

  /** A key's path as S3 wants it in the URL and in the canonical request: every byte but unreserved ones and '/'. */
  static String encodePath(String path) {
    return encode(path, true);
  }

  /**
   * A query string in the canonical form: names and values percent-encoded, sorted by name. The HTTP client sends
   * the same raw parameters encoded the same way (RFC 3986, unreserved characters kept).
   */
  static String canonicalQuery(Map<String, String> parameters) {
    StringBuilder query = new StringBuilder();
    new TreeMap<>(parameters).forEach((name, value) -> {
      if (!query.isEmpty()) {
        query.append('&');
      }
      query.append(encode(name, false)).append('=').append(encode(value, false));
    });
    return query.toString();
  }

  /** RFC 3986 percent-encoding of UTF-8 bytes, keeping A-Z a-z 0-9 - _ . ~ (and '/' when {@code keepSlash}). */
  private static String encode(String text, boolean keepSlash) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    StringBuilder encoded = null;
    for (int i = 0; i < bytes.length; i++) {
      int b = bytes[i] & 0xFF;
      boolean keep = (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b == '-'
          || b == '_' || b == '.' || b == '~' || (b == '/' && keepSlash);
      if (encoded == null) {
        if (keep) {
          continue;
        }
        encoded = new StringBuilder(bytes.length + 16).append(text, 0, i);
      }
      if (keep) {
        encoded.append((char) b);
      } else {
        encoded.append('%').append(Character.toUpperCase(Character.forDigit(b >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(b & 0xF, 16)));
      }
    }
    // Until the first byte to encode, every byte is ASCII, so byte index i is also char index i.
    return encoded == null ? text : encoded.toString();
  }

  static String sha256Hex(byte[] data, int length) {
    MessageDigest sha256 = sha256();
    sha256.update(data, 0, length);
    return HEX.formatHex(sha256.digest());
  }

  /** The SHA-256 of what {@code in} gives, to its end; the stream is left open. */
  static String sha256Hex(InputStream in) throws IOException {
    MessageDigest sha256 = sha256();
    byte[] buffer = new byte[JdkIoBuffers.CACHED_BYTES];
    for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
      sha256.update(buffer, 0, n);
    }
    return HEX.formatHex(sha256.digest());
  }

  private static String sha256Hex(String text) {
    return HEX.formatHex(sha256().digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("This Java runtime has no SHA-256", e);
    }
  }

  private static byte[] hmac(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("This Java runtime has no HmacSHA256", e);
    }
  }
}
