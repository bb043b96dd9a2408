package dev.quarry.core.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A hung endpoint, one that accepts connections and never answers: every request fails within the request deadline
 * (retries included, plus a little slack), with one line that names the endpoint and says what to do. Before the
 * deadline, a HEAD waited 60 s per attempt for 8 attempts.
 */
class S3HungEndpointIT {
  private static final Duration DEADLINE = Duration.ofSeconds(3);
  private static final Duration SLACK = Duration.ofSeconds(2);

  private final List<Socket> held = new CopyOnWriteArrayList<>();
  private ServerSocket hung;
  private S3Store store;
  private String endpoint;

  @BeforeEach
  void startHungEndpoint() throws IOException {
    hung = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().start(() -> {
      while (!hung.isClosed()) {
        try {
          held.add(hung.accept());
        } catch (IOException closed) {
          return;
        }
      }
    });
    endpoint = "http://127.0.0.1:" + hung.getLocalPort();
    store = S3Store.open("bucket", S3Settings.defaults().withEndpoint(URI.create(endpoint))
        .withCredentials("id", "secret").withRequestDeadline(DEADLINE));
  }

  @AfterEach
  void stop() throws IOException {
    store.close();
    hung.close();
    for (Socket socket : held) {
      socket.close();
    }
  }

  @Test
  void aHeadFailsWithinTheDeadline() {
    assertFailsInTime("read", "s3://bucket/key", () -> store.head("key"));
  }

  @Test
  void aGetFailsWithinTheDeadline() {
    assertFailsInTime("read", "s3://bucket/key", () -> store.getBytes("key"));
  }

  @Test
  void aPutFailsWithinTheDeadline() {
    assertFailsInTime("write", "s3://bucket/key", () -> store.put("key", "data".getBytes(UTF_8)));
  }

  @Test
  void aListFailsWithinTheDeadline() {
    assertFailsInTime("list", "s3://bucket/prefix/", () -> store.list("prefix/", null, 10));
  }

  @Test
  void aDeleteFailsWithinTheDeadline() {
    assertFailsInTime("delete", "s3://bucket/key", () -> store.delete("key"));
  }

  @Test
  void theDefaultDeadlineIsHalfAMinute() {
    assertThat(S3Settings.defaults().requestDeadline()).isEqualTo(Duration.ofSeconds(30));
    assertThat(S3Settings.defaults().attemptTimeout()).isEqualTo(Duration.ofSeconds(10));
  }

  private interface Request {
    void send() throws IOException;
  }

  private void assertFailsInTime(String action, String url, Request request) {
    long start = System.nanoTime();
    IOException failure = null;
    try {
      request.send();
    } catch (IOException e) {
      failure = e;
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(failure).as("a request to a hung endpoint fails").isNotNull();
    assertThat(took).isLessThan(DEADLINE.plus(SLACK));
    assertThat(failure.getMessage()).doesNotContain("\n")
        .startsWith("Cannot " + action + " " + url + ": no answer from " + endpoint + " within 3 s (")
        .endsWith("); check that the endpoint is up and reachable from here, or allow more with"
            + " QUARRY_S3_REQUEST_DEADLINE");
  }
}
