package dev.quarry.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import dev.quarry.testkit.TestTools;
import dev.quarry.testkit.Toxiproxy;
import dev.quarry.testkit.ToxiproxyExtension;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** An S3Store behind toxiproxy: retries through connection resets, and concurrency through latency. */
@ExtendWith({MinioExtension.class, ToxiproxyExtension.class})
class S3RetryIT {
  private static final Duration LATENCY = Duration.ofMillis(10);

  private final MinioServer minio;
  private final Toxiproxy toxiproxy;
  private String bucket;
  private Toxiproxy.Proxy proxy;

  S3RetryIT(MinioServer minio, Toxiproxy toxiproxy) {
    this.minio = minio;
    this.toxiproxy = toxiproxy;
  }

  @BeforeEach
  void bucketBehindAProxy() throws Exception {
    bucket = minio.createBucket("retry");
    proxy = toxiproxy.proxy("minio-" + UUID.randomUUID(), minio.endpoint());
  }

  private S3Store storeThroughProxy(int requestsInFlight) {
    return S3Store.open(bucket, S3StoreIT.settingsFor(minio).withEndpoint(proxy.endpoint())
        .withRequestsInFlight(requestsInFlight));
  }

  private static void await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Condition not met within " + timeout);
      }
      Thread.sleep(5);
    }
  }

  /** Runs {@code request} while the proxy resets every connection, and lifts the resets after two attempts. */
  private <T> T throughResets(S3Store store, RequestKind kind, Callable<T> request) throws Exception {
    proxy.resetPeer(Duration.ZERO);
    try (ExecutorService thread = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<T> result = thread.submit(request);
      await(() -> store.requests().get(kind) >= 2, Duration.ofSeconds(10));
      proxy.remove("reset_peer");
      return result.get(60, TimeUnit.SECONDS);
    }
  }

  @Test
  void aGetSucceedsThroughConnectionResetsByRetrying() throws Exception {
    byte[] data = ObjectStoreContract.bytes(100_000, 3);
    try (S3Store direct = S3Store.open(bucket, S3StoreIT.settingsFor(minio));
        S3Store store = storeThroughProxy(8)) {
      direct.put("object", data);

      byte[] read = throughResets(store, RequestKind.GET, () -> {
        try (InputStream in = store.get("object")) {
          return in.readAllBytes();
        }
      });

      System.out.println("GET through resets: " + store.requests());
      assertThat(read).isEqualTo(data);
      assertThat(store.requests().get()).isGreaterThan(1);
    }
  }

  @Test
  void aPutAndAMultipartUploadSucceedThroughConnectionResets() throws Exception {
    byte[] data = ObjectStoreContract.bytes(S3Settings.MIN_PART_SIZE_BYTES + 1000, 4);
    try (S3Store store = storeThroughProxy(8)) {
      throughResets(store, RequestKind.PUT, () -> {
        store.put("put", data);
        return null;
      });
      RequestCounts before = store.requests().snapshot();
      throughResets(store, RequestKind.PUT, () -> {
        try (ObjectUpload upload = store.upload("upload")) {
          upload.stream().write(data);
          return upload.commit();
        }
      });

      System.out.println("PUT and multipart upload through resets: " + store.requests());
      assertThat(store.requests().minus(before).put()).as("3 requests and the retries").isGreaterThan(3);
      try (InputStream put = store.get("put"); InputStream uploaded = store.get("upload")) {
        assertThat(put.readAllBytes()).isEqualTo(data);
        assertThat(uploaded.readAllBytes()).isEqualTo(data);
      }
    }
  }

  private static Duration timeHeads(S3Store store, int count) throws Exception {
    long start = System.nanoTime();
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> heads = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        heads.add(threads.submit(() -> store.head("object").orElseThrow()));
      }
      for (Future<?> head : heads) {
        head.get();
      }
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  @Test
  void concurrentRequestsOverlapTheirLatency() throws Exception {
    try (S3Store store = storeThroughProxy(64)) {
      store.put("object", new byte[10]);
      proxy.latency(LATENCY);
      timeHeads(store, 200); // Warms up the JIT and opens the pool's connections.

      Duration fifty = timeHeads(store, 50);
      Duration thousand = timeHeads(store, 1000);

      System.out.printf("50 concurrent HEADs through %d ms latency: %d ms%n", LATENCY.toMillis(), fifty.toMillis());
      System.out.printf("1000 HEADs, 64 in flight, through %d ms latency: %d ms%n", LATENCY.toMillis(),
          thousand.toMillis());
      assertThat(fifty).as("well under 50 x 10 ms one after another").isLessThan(LATENCY.multipliedBy(50 / 2));
      assertThat(thousand).as("well under 1000 x 10 ms one after another").isLessThan(LATENCY.multipliedBy(1000 / 4));
      assertThat(store.requests().head()).isEqualTo(200 + 50 + 1000);
    }
  }

  @Test
  void theConnectionPoolBoundsRequestsInFlight() throws Exception {
    try (S3Store store = storeThroughProxy(2)) {
      store.put("object", new byte[10]);
      proxy.latency(Duration.ofMillis(50));
      timeHeads(store, 4);

      Duration twenty = timeHeads(store, 20);

      System.out.printf("20 HEADs, 2 in flight, through 50 ms latency: %d ms%n", twenty.toMillis());
      assertThat(twenty).as("10 rounds of 2").isGreaterThanOrEqualTo(Duration.ofMillis(10 * 50));
    }
  }

  @Test
  void aStoreThatCannotConnectFailsAfterItsAttemptsNamingTheUrl() throws IOException {
    try (S3Store store = S3Store.open(bucket, S3StoreIT.settingsFor(minio)
        .withEndpoint(URI.create("http://127.0.0.1:" + TestTools.freeLoopbackPort()))
        .withMaxAttempts(3))) {
      assertThatThrownBy(() -> store.head("object"))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("Cannot read " + store.url("object") + ": ");
      assertThat(store.requests().head()).isEqualTo(3);
    }
  }
}
