package dev.quarry.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How a write if absent reads the answers of S3 stores other than MinIO (whose own answers {@code S3StoreIT} meets), on
 * a local endpoint that answers each PUT as told: AWS's 409 ConditionalRequestConflict while another conditional PUT
 * of the key runs, and 501 NotImplemented from a store without conditional writes.
 */
class S3ConditionalWriteTest {
  private HttpServer server;
  /** The answers to the coming PUTs, in order: a status and an S3 error code, or 200 when none is left. */
  private final Deque<String[]> answers = new ArrayDeque<>();
  /** Each PUT's If-None-Match header, "" for none. */
  private final List<String> conditions = Collections.synchronizedList(new ArrayList<>());
  private S3Store store;

  @BeforeEach
  void startEndpoint() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::answer);
    server.start();
    store = S3Store.open("bucket", S3Settings.defaults()
        .withEndpoint(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
        .withCredentials("key", "secret").withPathStyle(true));
  }

  @AfterEach
  void stop() throws IOException {
    store.close();
    server.stop(0);
  }

  private void answer(HttpExchange exchange) throws IOException {
    exchange.getRequestBody().readAllBytes();
    if (exchange.getRequestMethod().equals("PUT")) {
      conditions.add(String.valueOf(exchange.getRequestHeaders().getFirst("If-None-Match")).replace("null", ""));
    }
    String[] told;
    synchronized (answers) {
      told = answers.isEmpty() ? new String[] {"200", null} : answers.poll();
    }
    int status = Integer.parseInt(told[0]);
    byte[] body = told[1] == null ? new byte[0] : ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + told[1]
        + "</Code><Message>told so</Message></Error>").getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("ETag", "\"0123\"");
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    exchange.getResponseBody().write(body);
    exchange.close();
  }

  @Test
  void aConflictingConditionalWriteIsSentAgainUntilItIsAnswered() throws IOException {
    answers.add(new String[] {"409", "ConditionalRequestConflict"});
    answers.add(new String[] {"409", "ConditionalRequestConflict"});
    answers.add(new String[] {"412", "PreconditionFailed"});
    assertThat(store.putIfAbsent("claim", new byte[] {1})).isFalse();
    assertThat(conditions).containsExactly("*", "*", "*");

    answers.add(new String[] {"409", "ConditionalRequestConflict"});
    assertThat(store.putIfAbsent("claim", new byte[] {1})).isTrue();
  }

  @Test
  void anotherConflictIsAnErrorNotAnAnswer() {
    answers.add(new String[] {"409", "OperationAborted"});
    assertThatThrownBy(() -> store.putIfAbsent("claim", new byte[] {1})).isInstanceOf(IOException.class)
        .hasMessageStartingWith("Cannot write s3://bucket/claim: ");
    assertThat(conditions).hasSize(1);
  }

  @Test
  void aStoreWithoutConditionalWritesGetsPlainWritesFromThenOn() throws IOException {
    answers.add(new String[] {"501", "NotImplemented"});
    assertThat(store.putIfAbsent("claim", new byte[] {1})).isTrue();
    assertThat(store.putIfAbsent("claim", new byte[] {2})).as("it cannot tell; it overwrites").isTrue();
    assertThat(conditions).containsExactly("*", "", "");
  }
}
