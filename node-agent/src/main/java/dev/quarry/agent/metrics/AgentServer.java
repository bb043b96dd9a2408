package dev.quarry.agent.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** The agent's HTTP endpoints: {@code /metrics} for Prometheus, {@code /healthz} and {@code /readyz} for kubelet. */
public final class AgentServer implements AutoCloseable {
  private final HttpServer server;

  public AgentServer(int port, Supplier<String> metrics, BooleanSupplier live, BooleanSupplier ready)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(port), 0);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.createContext("/metrics", exchange -> respond(exchange, 200, metrics.get(),
        "text/plain; version=0.0.4; charset=utf-8"));
    server.createContext("/healthz", exchange -> probe(exchange, live.getAsBoolean(), "the agent loop is stuck"));
    server.createContext("/readyz", exchange -> probe(exchange, ready.getAsBoolean(),
        "no reconcile pass has finished yet"));
    server.start();
  }

  /** The port bound (useful when 0 was asked for). */
  public int port() {
    return server.getAddress().getPort();
  }

  private static void probe(HttpExchange exchange, boolean ok, String failure) throws IOException {
    respond(exchange, ok ? 200 : 503, ok ? "ok\n" : failure + "\n", "text/plain; charset=utf-8");
  }

  private static void respond(HttpExchange exchange, int status, String body, String type) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
