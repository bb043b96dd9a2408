package dev.quarry.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real MinIO server on a free loopback port, with a fresh data folder and credentials generated for it. Built
 * from its Go module by {@code e2e/tools/install-test-tools.sh}.
 */
public final class MinioServer implements AutoCloseable {
  public static final String REGION = "us-east-1";
  private static final int START_ATTEMPTS = 3;

  private final ServerProcess process;
  private final Path dataDir;
  private final int port;
  private final String accessKey;
  private final String secretKey;

  private final String scheme;

  private MinioServer(ServerProcess process, Path dataDir, int port, String accessKey, String secretKey,
      String scheme) {
    this.process = process;
    this.dataDir = dataDir;
    this.port = port;
    this.accessKey = accessKey;
    this.secretKey = secretKey;
    this.scheme = scheme;
  }

  /** Starts a server with an empty data folder; retries on another port if the chosen one was taken meanwhile. */
  public static MinioServer start() throws IOException, InterruptedException {
    return start(false);
  }

  /**
   * Starts a server that answers over HTTPS alone, with a self-signed certificate for 127.0.0.1 made by the JDK's
   * keytool; {@link #trustStore()} trusts it (for a JVM of its own: {@code -Djavax.net.ssl.trustStore}).
   */
  public static MinioServer startTls() throws IOException, InterruptedException {
    return start(true);
  }

  private static MinioServer start(boolean tls) throws IOException, InterruptedException {
    Path binary = TestTools.binary("minio");
    Path dataDir = Files.createTempDirectory("quarry-minio-");
    java.net.http.HttpClient probe;
    try {
      probe = tls ? SelfSignedCertificate.create(dataDir).probe() : null;
    } catch (IOException | RuntimeException e) {
      deleteRecursively(dataDir);
      throw e;
    }
    try {
      return start(binary, dataDir, tls, probe);
    } finally {
      if (probe != null) {
        probe.close();
      }
    }
  }

  private static MinioServer start(Path binary, Path dataDir, boolean tls, java.net.http.HttpClient probe)
      throws IOException, InterruptedException {
    String scheme = tls ? "https" : "http";
    String accessKey = "quarry-" + UUID.randomUUID().toString().substring(0, 8);
    String secretKey = UUID.randomUUID().toString();
    IOException last = null;
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      int port = TestTools.freeLoopbackPort();
      int consolePort = TestTools.freeLoopbackPort();
      try {
        List<String> command = new java.util.ArrayList<>(List.of(binary.toString(), "server",
            "--address", "127.0.0.1:" + port, "--console-address", "127.0.0.1:" + consolePort, "--quiet"));
        if (tls) {
          command.addAll(List.of("--certs-dir", dataDir.resolve(SelfSignedCertificate.CERTS).toString()));
        }
        command.add(dataDir.resolve("data").toString());
        URI health = URI.create(scheme + "://127.0.0.1:" + port + "/minio/health/live");
        ServerProcess process = ServerProcess.start("minio", command, environment(accessKey, secretKey),
            dataDir.resolve("minio-" + attempt + ".log"), health, Duration.ofSeconds(60), probe);
        return new MinioServer(process, dataDir, port, accessKey, secretKey, scheme);
      } catch (IOException e) {
        last = e;
      }
    }
    deleteRecursively(dataDir);
    throw last;
  }

  private static Map<String, String> environment(String accessKey, String secretKey) {
    // Metrics readable without a token, for tests that count what the server sent (loopback only).
    return Map.of("MINIO_ROOT_USER", accessKey, "MINIO_ROOT_PASSWORD", secretKey, "MINIO_BROWSER", "off",
        "MINIO_UPDATE", "off", "MINIO_PROMETHEUS_AUTH_TYPE", "public");
  }

  /** The PKCS12 trust store (password {@code changeit}) that trusts a {@link #startTls} server's certificate. */
  public Path trustStore() {
    return dataDir.resolve(SelfSignedCertificate.TRUST_STORE);
  }

  /** Bytes the server has sent in answers to S3 requests since it started (object bytes, mostly), from its metrics. */
  public long bytesSent() throws IOException, InterruptedException {
    return s3Metric("minio_api_requests_traffic_sent_bytes");
  }

  /**
   * The sum of one of the server's S3 API metrics since it started ({@code minio_api_requests_total},
   * {@code minio_api_requests_traffic_received_bytes}, ...), from its v3 metrics.
   */
  public long s3Metric(String name) throws IOException, InterruptedException {
    java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(endpoint().resolve("/minio/metrics/v3/api/requests")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("Cannot read MinIO's metrics: HTTP " + response.statusCode());
    }
    java.util.regex.Matcher sent = java.util.regex.Pattern.compile(
        "(?m)^" + java.util.regex.Pattern.quote(name) + "\\{[^}]*type=\"s3\"[^}]*}\\s+(\\S+)")
        .matcher(response.body());
    long total = 0;
    while (sent.find()) {
      total += Math.round(Double.parseDouble(sent.group(1)));
    }
    return total;
  }

  /** The S3 endpoint, for example {@code http://127.0.0.1:39123} ({@code https} for {@link #startTls}). */
  public URI endpoint() {
    return URI.create(scheme + "://127.0.0.1:" + port);
  }

  public int port() {
    return port;
  }

  public String accessKey() {
    return accessKey;
  }

  public String secretKey() {
    return secretKey;
  }

  /**
   * A path-style S3 client for this server; the caller closes it. It trusts what the JVM trusts: for a {@link
   * #startTls} server, only in a JVM given {@link #trustStore()}.
   */
  public S3Client client() {
    return clientFor(endpoint());
  }

  /** A path-style S3 client with this server's credentials for another endpoint, such as a proxy in front. */
  public S3Client clientFor(URI endpoint) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.of(REGION))
        .credentialsProvider(credentials())
        .forcePathStyle(true)
        .build();
  }

  /** This server's credentials for an S3 client. */
  public StaticCredentialsProvider credentials() {
    return StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey));
  }

  /** Creates a bucket with a unique name and returns the name. */
  public String createBucket(String prefix) {
    String bucket = (prefix + "-" + UUID.randomUUID().toString().substring(0, 8)).toLowerCase();
    try (S3Client s3 = client()) {
      s3.createBucket(b -> b.bucket(bucket));
    }
    return bucket;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    process.close();
    deleteRecursively(dataDir);
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete " + dir, e);
    }
  }
}
